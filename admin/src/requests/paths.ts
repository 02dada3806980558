import { StaffRoutes } from '@esign/contract';

/** A request's page (issue 22): the requests resource's show route, `/requests/{refId}/show`. */
export const requestShowPath = (refId: number | string): string =>
  StaffRoutes.requestShow.replace(':id', encodeURIComponent(String(refId)));
