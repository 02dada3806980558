import { Messages } from '@esign/contract';
import { useCallback } from 'react';
import { useListContext, type ListControllerProps, type SortPayload } from 'react-admin';
import type { TemplateSort, TemplateSortField, TemplateView } from './types';

/** Newest first, as the API lists templates until a header is clicked. */
export const TEMPLATE_DEFAULT_SORT: SortPayload = { field: 'timestamp', order: 'DESC' };

/**
 * What a template table's <ListBase> reads: GET /api/templates through ra-data-simple-rest, sorted, searched and
 * paged by the server; read afresh each time the table is shown (nothing kept once it is gone), the page in the URL
 * left alone. A failure shows in the table, so there is no toast too.
 */
export const templateListProps = (perPage: number): ListControllerProps<TemplateView> => ({
  resource: 'templates',
  perPage,
  sort: TEMPLATE_DEFAULT_SORT,
  disableSyncWithLocation: true,
  storeKey: false,
  queryOptions: { gcTime: 0, onError: () => undefined },
});

/** The next sort when a column header is clicked: ascending first, then flipping. */
export const nextSort = (current: SortPayload | null, field: TemplateSortField): TemplateSort =>
  current?.field === field ? { field, order: current.order === 'ASC' ? 'DESC' : 'ASC' } : { field, order: 'ASC' };

/** The template table's list state: its rows, sort (click a header) and whether a search is on. */
export function useTemplateList() {
  const list = useListContext<TemplateView>();
  const { sort, setSort } = list;
  const onSort = useCallback((field: TemplateSortField) => setSort(nextSort(sort, field)), [sort, setSort]);
  const searching = Object.values(list.filterValues ?? {}).some((value) => value !== undefined && value !== '');
  return {
    ...list,
    rows: list.data ?? [],
    onSort,
    /** No rows: 'No Templates Available', or 'No records found.' when a search found none. */
    emptyText: searching ? Messages.noRecordsFound : Messages.noTemplatesAvailable,
  };
}
