/**
 * The query every /api list takes (ra-data-simple-rest): `range`, `sort` and `filter` as JSON text, nothing else.
 * Each list reads them against its own sortable fields and filters (api/src/common/rest-query.ts).
 */
import { z } from 'zod';
import { reportsEveryIssue, strictFields } from './core';

export const listQuerySchema = reportsEveryIssue(
  strictFields({
    range: z
      .string({ error: 'range must be a string' })
      .optional()
      .meta({ description: 'JSON [start, end], inclusive, at most 100 rows.', examples: ['[0,9]'] }),
    sort: z
      .string({ error: 'sort must be a string' })
      .optional()
      .meta({ description: 'JSON [field, "ASC" | "DESC"].', examples: ['["timestamp","DESC"]'] }),
    filter: z
      .string({ error: 'filter must be a string' })
      .optional()
      .meta({ description: "JSON object of the list's filters.", examples: ['{"q":"lease"}'] }),
  }),
);

export type ListQuery = z.output<typeof listQuerySchema>;

/** The most rows one page of a list answers. */
export const MAX_PAGE_ROWS = 100;
/** Longest text a filter takes (a search box's words, never a document). */
export const MAX_FILTER_TEXT = 200;

/** What a filter takes: text (a number is taken as its digits), true or false, or an ISO 8601 date or date-time. */
export type FilterKind = 'text' | 'boolean' | 'time';
type FilterValue<K extends FilterKind> = K extends 'text' ? string : K extends 'boolean' ? boolean : Date;

/** What a list is sorted and filtered by: its sortable fields, default sort, default range and filters. */
export interface ListSpec<F extends string, R extends Record<string, FilterKind>> {
  sortable: readonly F[];
  sort: [F, 'ASC' | 'DESC'];
  /** When the query has no range; [0, MAX_PAGE_ROWS - 1] unless given. */
  range?: [number, number];
  filters: R;
}

/** A list's query as its service takes it: the rows asked for, the order, and each filter given, typed. */
export interface ListParams<F extends string, R extends Record<string, FilterKind>> {
  start: number;
  limit: number;
  sort: F;
  order: 'ASC' | 'DESC';
  filter: { [K in keyof R]?: FilterValue<R[K]> };
}

class ListProblem extends Error {}

function jsonParam(value: string | undefined, name: string): unknown {
  if (value === undefined || value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new ListProblem(`${name} must be JSON.`);
  }
}

function rangeOf(value: string | undefined, fallback: [number, number]): { start: number; limit: number } {
  const range = jsonParam(value, 'range') ?? fallback;
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    range[1] < range[0] ||
    range[1] - range[0] >= MAX_PAGE_ROWS
  )
    throw new ListProblem(`range must be [start, end] with 0 <= start <= end and at most ${MAX_PAGE_ROWS} rows.`);
  return { start: range[0], limit: range[1] - range[0] + 1 };
}

function sortOf<F extends string>(
  value: string | undefined,
  fields: readonly F[],
  fallback: [F, 'ASC' | 'DESC'],
): [F, 'ASC' | 'DESC'] {
  const sort = jsonParam(value, 'sort');
  if (sort === undefined) return fallback;
  if (
    !Array.isArray(sort) ||
    sort.length !== 2 ||
    !fields.includes(sort[0] as F) ||
    !['ASC', 'DESC'].includes(String(sort[1]).toUpperCase())
  )
    throw new ListProblem(`sort must be [field, "ASC" or "DESC"] with field one of ${fields.join(', ')}.`);
  return [sort[0] as F, String(sort[1]).toUpperCase() as 'ASC' | 'DESC'];
}

function filterValue(key: string, kind: FilterKind, value: unknown): string | boolean | Date | undefined {
  if (kind === 'text') {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') throw new ListProblem(`filter.${key} must be text.`);
    const text = String(value).trim();
    if (text.length > MAX_FILTER_TEXT)
      throw new ListProblem(`filter.${key} must be at most ${MAX_FILTER_TEXT} characters.`);
    return text || undefined;
  }
  if (value === undefined || value === null || value === '') return undefined;
  if (kind === 'boolean') {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw new ListProblem(`filter.${key} must be true or false.`);
  }
  const time = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : null;
  if (!time || Number.isNaN(time.getTime()))
    throw new ListProblem(`filter.${key} must be an ISO 8601 date, like 2026-01-31T10:00:00Z.`);
  return time;
}

/** `filter={…}`: a JSON object whose keys are all the list's filters (a misspelt filter is refused, not ignored). */
function filterOf<R extends Record<string, FilterKind>>(
  value: string | undefined,
  filters: R,
): ListParams<string, R>['filter'] {
  const filter = jsonParam(value, 'filter');
  if (filter === undefined) return {};
  if (!filter || typeof filter !== 'object' || Array.isArray(filter))
    throw new ListProblem('filter must be a JSON object.');
  const keys = Object.keys(filters);
  const unknown = Object.keys(filter).filter((key) => !keys.includes(key));
  if (unknown.length)
    throw new ListProblem(`filter.${unknown[0]} is not a filter of this list; it takes ${keys.join(', ')}.`);
  const typed: Record<string, string | boolean | Date> = {};
  for (const [key, kind] of Object.entries(filters)) {
    const v = filterValue(key, kind, (filter as Record<string, unknown>)[key]);
    if (v !== undefined) typed[key] = v;
  }
  return typed as ListParams<string, R>['filter'];
}

/**
 * The query of one /api list (ra-data-simple-rest: `range=[start,end]`, `sort=["field","ASC"]`, `filter={"q":"…"}`
 * as JSON), checked against its spec: the range, then the sort, then the filters, each malformed one a 400 that says
 * what is wrong. The list's service receives ListParams.
 */
export function listQueryFor<F extends string, R extends Record<string, FilterKind>>(spec: ListSpec<F, R>) {
  // Every problem of the query's shape at once, as the base schema answers; then the first of its values.
  return reportsEveryIssue(
    listQuerySchema.transform((query, ctx): ListParams<F, R> => {
      try {
        const { start, limit } = rangeOf(query.range, spec.range ?? [0, MAX_PAGE_ROWS - 1]);
        const [sort, order] = sortOf(query.sort, spec.sortable, spec.sort);
        return { start, limit, sort, order, filter: filterOf(query.filter, spec.filters) };
      } catch (err) {
        if (!(err instanceof ListProblem)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message, input: query });
        return z.NEVER;
      }
    }),
  );
}
