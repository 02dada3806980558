import { useCallback, useEffect, useMemo, useState } from 'react';
import { useDataProvider } from 'react-admin';
import type { TemplateSort, TemplateView } from './types';

/** The API answers at most 100 rows a call; an organisation's templates are read in pages of that size. */
const PAGE_ROWS = 100;
const MAX_PAGES = 50;

export interface TemplatesState {
  templates: TemplateView[];
  isPending: boolean;
  error: unknown;
  refetch: () => void;
}

/**
 * All the organisation's templates (GET /api/templates, ra-data-simple-rest, page after page), read when `enabled`
 * turns true and again on refetch(). The tables sort and page them in the browser: the API lists them newest first and
 * does not sort.
 */
export function useTemplates(enabled = true): TemplatesState {
  const dataProvider = useDataProvider();
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<Omit<TemplatesState, 'refetch'>>({
    templates: [],
    isPending: enabled,
    error: null,
  });

  // Turning enabled on shows the loading state from that very render, never the previous (or empty) list.
  const [wasEnabled, setWasEnabled] = useState(enabled);
  if (enabled !== wasEnabled) {
    setWasEnabled(enabled);
    if (enabled) setState((previous) => ({ ...previous, isPending: true, error: null }));
  }

  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    setState((previous) => ({ ...previous, isPending: true, error: null }));
    const readAll = async (): Promise<TemplateView[]> => {
      const all: TemplateView[] = [];
      for (let page = 1; page <= MAX_PAGES; page += 1) {
        const { data, total } = await dataProvider.getList<TemplateView>('templates', {
          pagination: { page, perPage: PAGE_ROWS },
          sort: { field: 'timestamp', order: 'DESC' },
          filter: {},
        });
        all.push(...data);
        if (data.length < PAGE_ROWS || (total !== undefined && all.length >= total)) break;
      }
      return all;
    };
    readAll().then(
      (templates) => !cancelled && setState({ templates, isPending: false, error: null }),
      (error: unknown) => !cancelled && setState({ templates: [], isPending: false, error }),
    );
    return () => {
      cancelled = true;
    };
  }, [dataProvider, enabled, version]);

  const refetch = useCallback(() => setVersion((v) => v + 1), []);
  return { ...state, refetch };
}

/** Names sort as people read them ('Form 2' before 'Form 10', case aside); ids and ISO times character by character. */
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const plain = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The templates in `sort` order (a copy); ties keep the API's order (newest first). */
export function sortTemplates(templates: readonly TemplateView[], sort: TemplateSort | null): TemplateView[] {
  if (!sort) return [...templates];
  const sign = sort.order === 'ASC' ? 1 : -1;
  return [...templates].sort((a, b) => {
    const x = a[sort.field];
    const y = b[sort.field];
    const compared =
      typeof x === 'number' && typeof y === 'number'
        ? x - y
        : sort.field === 'template_id' || sort.field === 'timestamp'
          ? plain(String(x), String(y))
          : collator.compare(String(x), String(y));
    return sign * compared;
  });
}

/** One page of the sorted templates, and the page number kept inside the list when it shrinks (after a delete). */
export function useTemplatePage(
  templates: readonly TemplateView[],
  sort: TemplateSort | null,
  page: number,
  perPage: number,
): { rows: TemplateView[]; page: number } {
  return useMemo(() => {
    const sorted = sortTemplates(templates, sort);
    const last = Math.max(0, Math.ceil(sorted.length / perPage) - 1);
    const shown = Math.min(page, last);
    return { rows: sorted.slice(shown * perPage, (shown + 1) * perPage), page: shown };
  }, [templates, sort, page, perPage]);
}

/** The next sort when a column header is clicked: ascending first, then flipping. */
export const nextSort = (current: TemplateSort | null, field: TemplateSort['field']): TemplateSort =>
  current?.field === field ? { field, order: current.order === 'ASC' ? 'DESC' : 'ASC' } : { field, order: 'ASC' };
