import type { Response } from 'express';
import type { DataSource } from 'typeorm';

/**
 * The console's list convention (ra-data-simple-rest): `sort=["field","ASC"]`, `range=[start,end]`,
 * `filter={"q":"…"}` as JSON query parameters, and the answer's total in `Content-Range: resource start-end/total`
 * (and `X-Total-Count`). Every /api list declares its query in the contract (`listQueryFor`: its sortable fields,
 * default sort and range, and typed filters), checked by `@InputQuery` before the controller, and writes its page with
 * sendPage.
 */
export interface ListPage<T> {
  rows: T[];
  start: number;
  total: number;
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
  for (const [name, value] of Object.entries(pageHeaders(resource, page))) res.setHeader(name, value);
  return page.rows;
}

/** The headers a page of `resource` is answered with (sendPage; the console list answered before Express). */
export function pageHeaders<T>(resource: string, page: ListPage<T>): Record<string, string> {
  const last = Math.max(page.start + page.rows.length - 1, page.start);
  return {
    'Content-Range': `${resource} ${page.start}-${last}/${page.total}`,
    'X-Total-Count': String(page.total),
    'Access-Control-Expose-Headers': 'Content-Range, X-Total-Count',
  };
}
