import { StaffRoutes } from '@esign/contract';

/** Console routes behind the staff layout and the session check (spec section 2, route table). */
export const STAFF_PATHS: readonly string[] = [
  StaffRoutes.dashboard,
  StaffRoutes.drafts,
  StaffRoutes.requestInitiate,
  StaffRoutes.upload,
  StaffRoutes.mailSent,
  StaffRoutes.templates,
  StaffRoutes.templateCreate,
  StaffRoutes.outbox,
  StaffRoutes.settings,
];

export const isStaffPath = (pathname: string): boolean => STAFF_PATHS.includes(pathname.replace(/\/+$/, '') || '/');
