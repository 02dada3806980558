import type { Response } from 'express';
import { AppError } from './app-error';

/**
 * The console's list convention (ra-data-simple-rest): `sort=["field","ASC"]`, `range=[start,end]`,
 * `filter={"q":"…"}` as JSON query parameters, and the answer's total in `Content-Range: resource start-end/total`.
 * Every /api list reads its query and writes its header through these.
 */
export const MAX_PAGE_ROWS = 100;

export interface ListPage<T> {
  rows: T[];
  start: number;
  total: number;
}

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
    !range.every((n) => Number.isInteger(n) && n >= 0) ||
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

export function parseFilter(value: unknown): Record<string, unknown> {
  const filter = parseJsonParam(value, 'filter');
  if (filter === undefined) return {};
  if (!filter || typeof filter !== 'object' || Array.isArray(filter))
    throw new AppError('VALIDATION_FAILED', 'filter must be a JSON object.');
  return filter as Record<string, unknown>;
}

/** Sets Content-Range (exposed, so a cross-origin console may read it) and answers the rows. */
export function sendPage<T>(res: Response, resource: string, page: ListPage<T>): T[] {
  const last = Math.max(page.start + page.rows.length - 1, page.start);
  res.setHeader('Content-Range', `${resource} ${page.start}-${last}/${page.total}`);
  res.setHeader('Access-Control-Expose-Headers', 'Content-Range');
  return page.rows;
}
