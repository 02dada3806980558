import type { ListQuery } from '@esign/contract';
import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import { AppError } from './app-error';

/**
 * The console's list convention (ra-data-simple-rest): `sort=["field","ASC"]`, `range=[start,end]`,
 * `filter={"q":"…"}` as JSON query parameters, and the answer's total in `Content-Range: resource start-end/total`
 * (and `X-Total-Count`). Every /api list reads its query with parseListQuery and writes its page with sendPage.
 */
export const MAX_PAGE_ROWS = 100;

/** Longest text a filter takes (a search box's words, never a document). */
export const MAX_FILTER_TEXT = 200;

export interface ListPage<T> {
  rows: T[];
  start: number;
  total: number;
}

/**
 * The query every /api list takes (`listQuerySchema` of the contract, declared with `@InputQuery(listQuerySchema)`):
 * any other parameter is refused (400).
 */
export type ListQueryDto = ListQuery;

export function parseJsonParam(value: unknown, name: string): unknown {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new AppError('VALIDATION_FAILED', `${name} must be JSON.`);
  try {
    return JSON.parse(value);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${name} must be JSON.`);
  }
}

/** `range=[start,end]`, inclusive, at most MAX_PAGE_ROWS rows; answers start and the number of rows asked for. */
export function parseRange(value: unknown, fallback: [number, number]): { start: number; limit: number } {
  const range = parseJsonParam(value, 'range') ?? fallback;
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    range[1] < range[0] ||
    range[1] - range[0] >= MAX_PAGE_ROWS
  ) {
    throw new AppError(
      'VALIDATION_FAILED',
      `range must be [start, end] with 0 <= start <= end and at most ${MAX_PAGE_ROWS} rows.`,
    );
  }
  return { start: range[0], limit: range[1] - range[0] + 1 };
}

/** `sort=[field, "ASC"|"DESC"]` with field one of `fields`. */
export function parseSort<F extends string>(
  value: unknown,
  fields: readonly F[],
  fallback: [F, 'ASC' | 'DESC'],
): [F, 'ASC' | 'DESC'] {
  const sort = parseJsonParam(value, 'sort');
  if (sort === undefined) return fallback;
  if (
    !Array.isArray(sort) ||
    sort.length !== 2 ||
    !fields.includes(sort[0] as F) ||
    !['ASC', 'DESC'].includes(String(sort[1]).toUpperCase())
  ) {
    throw new AppError(
      'VALIDATION_FAILED',
      `sort must be [field, "ASC" or "DESC"] with field one of ${fields.join(', ')}.`,
    );
  }
  return [sort[0] as F, String(sort[1]).toUpperCase() as 'ASC' | 'DESC'];
}

/** `filter={…}`: a JSON object whose keys are all among `keys` (a misspelt filter is refused, not ignored). */
export function parseFilter(value: unknown, keys?: readonly string[]): Record<string, unknown> {
  const filter = parseJsonParam(value, 'filter');
  if (filter === undefined) return {};
  if (!filter || typeof filter !== 'object' || Array.isArray(filter))
    throw new AppError('VALIDATION_FAILED', 'filter must be a JSON object.');
  if (keys) {
    const unknown = Object.keys(filter).filter((key) => !keys.includes(key));
    if (unknown.length)
      throw new AppError(
        'VALIDATION_FAILED',
        `filter.${unknown[0]} is not a filter of this list; it takes ${keys.join(', ')}.`,
      );
  }
  return filter as Record<string, unknown>;
}

/** What a list is sorted and filtered by: its sortable fields, default sort, default range and filter keys. */
export interface ListSpec<F extends string> {
  sortable: readonly F[];
  sort: [F, 'ASC' | 'DESC'];
  /** When the query has no range; [0, MAX_PAGE_ROWS - 1] unless given. */
  range?: [number, number];
  filters: readonly string[];
}

export interface ListParams<F extends string> {
  start: number;
  limit: number;
  sort: F;
  order: 'ASC' | 'DESC';
  filter: Record<string, unknown>;
}

/** A list's range, sort and filter, checked against its spec; anything malformed is a 400 that says what is wrong. */
export function parseListQuery<F extends string>(
  query: { range?: unknown; sort?: unknown; filter?: unknown },
  spec: ListSpec<F>,
): ListParams<F> {
  const { start, limit } = parseRange(query.range, spec.range ?? [0, MAX_PAGE_ROWS - 1]);
  const [sort, order] = parseSort(query.sort, spec.sortable, spec.sort);
  return { start, limit, sort, order, filter: parseFilter(query.filter, spec.filters) };
}

/** A text filter (a number is taken as its digits); undefined when absent or blank. */
export function filterText(filter: Record<string, unknown>, key: string): string | undefined {
  const value = filter[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new AppError('VALIDATION_FAILED', `filter.${key} must be text.`);
  const text = String(value).trim();
  if (text.length > MAX_FILTER_TEXT)
    throw new AppError('VALIDATION_FAILED', `filter.${key} must be at most ${MAX_FILTER_TEXT} characters.`);
  return text || undefined;
}

/** A yes/no filter: true or false (JSON booleans, or the words). */
export function filterBoolean(filter: Record<string, unknown>, key: string): boolean | undefined {
  const value = filter[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new AppError('VALIDATION_FAILED', `filter.${key} must be true or false.`);
}

/** A time filter: an ISO 8601 date or date-time (2026-01-31, 2026-01-31T10:00:00Z). */
export function filterTime(filter: Record<string, unknown>, key: string): Date | undefined {
  const value = filter[key];
  if (value === undefined || value === null || value === '') return undefined;
  const time = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : null;
  if (!time || Number.isNaN(time.getTime()))
    throw new AppError('VALIDATION_FAILED', `filter.${key} must be an ISO 8601 date, like 2026-01-31T10:00:00Z.`);
  return time;
}

/**
 * `LIKE :pattern ESCAPE '!'` for "contains `text`", its % and _ taken literally. '!' is the escape character because
 * a backslash means different things in SQLite and MySQL string literals. SQLite's LIKE and MySQL's *_ci collations
 * both ignore ASCII case.
 */
export const LIKE_ESCAPE = "ESCAPE '!'";
export const containsPattern = (text: string): string => `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** ORDER BY a text column as people read it, case aside: MySQL's *_ci collations do; SQLite needs NOCASE. */
export const caseless = (db: DataSource, column: string): string =>
  db.options.type === 'better-sqlite3' ? `${column} COLLATE NOCASE` : column;

/** Sets Content-Range and X-Total-Count (exposed, so a cross-origin console may read them) and answers the rows. */
export function sendPage<T>(res: Response, resource: string, page: ListPage<T>): T[] {
  const last = Math.max(page.start + page.rows.length - 1, page.start);
  res.setHeader('Content-Range', `${resource} ${page.start}-${last}/${page.total}`);
  res.setHeader('X-Total-Count', String(page.total));
  res.setHeader('Access-Control-Expose-Headers', 'Content-Range, X-Total-Count');
  return page.rows;
}
