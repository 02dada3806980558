/**
 * Every place the database keeps a document storage key (the SHA-256 of stored bytes: PDFs, signed versions, logos,
 * signature images, selfies, attachments, prepared files and CMS of outside signatures, template annotations).
 *
 * One list, read by the backup (which stores exactly the documents the database copy refers to) and by retention and
 * erasure (which delete a document only when nothing else refers to it: storage is content-addressed, so two
 * requests of the same PDF share one file). Written as SQL over table and column names rather than entities so that
 * the leaf `database` imports no module; `document-references.spec.ts` fails when an entity gains a `*_key` column
 * that is not listed here.
 */

/** A column holding storage keys, and the rows whose key still needs its file. */
export interface KeyColumn {
  table: string;
  column: string;
  /** SQL condition on the row (without WHERE): a key in a row that does not match is no longer needed. */
  live?: string;
}

/** Columns that hold one key each. */
export const KEY_COLUMNS: readonly KeyColumn[] = [
  // Retention (issue 24) deletes a request's documents and keeps their hashes: from then on those keys need no file.
  { table: 'requests', column: 'file_key', live: 'files_deleted_at IS NULL' },
  { table: 'requests', column: 'signed_file_key', live: 'files_deleted_at IS NULL' },
  // A party's selfie and signature image: cleared when erased; deleted with the request's media or documents.
  {
    table: 'parties',
    column: 'selfie_key',
    live: 'ref_id IN (SELECT ref_id FROM requests WHERE media_deleted_at IS NULL AND files_deleted_at IS NULL)',
  },
  {
    table: 'parties',
    column: 'signature_key',
    live: 'ref_id IN (SELECT ref_id FROM requests WHERE files_deleted_at IS NULL)',
  },
  { table: 'templates', column: 'file_key' },
  { table: 'templates', column: 'annotation_key' },
  { table: 'organisations', column: 'logo_key' },
  { table: 'external_signatures', column: 'base_file_key', live: NOT_DELETED('ref_id') },
  { table: 'external_signatures', column: 'prepared_file_key', live: NOT_DELETED('ref_id') },
  { table: 'external_signatures', column: 'cms_key', live: NOT_DELETED('ref_id') },
  { table: 'esign_transactions', column: 'base_file_key', live: NOT_DELETED('ref_id') },
  { table: 'esign_transactions', column: 'prepared_file_key', live: NOT_DELETED('ref_id') },
];

function NOT_DELETED(refColumn: string): string {
  return `${refColumn} IN (SELECT ref_id FROM requests WHERE files_deleted_at IS NULL)`;
}

/** Columns that hold JSON with keys inside: a party's fields (each attachment's `key`). */
export const JSON_KEY_COLUMNS: readonly (KeyColumn & { keysOf: (json: string) => string[] })[] = [
  {
    table: 'parties',
    column: 'fields',
    live: 'ref_id IN (SELECT ref_id FROM requests WHERE files_deleted_at IS NULL)',
    keysOf: (json) => {
      try {
        const fields = JSON.parse(json) as { attachment?: { key?: unknown } | null }[] | null;
        return (fields ?? []).map((f) => f.attachment?.key).filter((k): k is string => typeof k === 'string');
      } catch {
        return [];
      }
    },
  },
];

/** Runs a read-only SQL statement and answers its rows (better-sqlite3, a TypeORM manager: whatever reads). */
export type RowReader = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

const KEY = /^[0-9a-f]{64}$/;

/** Every key the database still needs a file for (the live rows of KEY_COLUMNS and JSON_KEY_COLUMNS). */
export async function referencedKeys(read: RowReader): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const c of KEY_COLUMNS) {
    const rows = await read(
      `SELECT DISTINCT ${c.column} AS k FROM ${c.table} WHERE ${c.column} IS NOT NULL${c.live ? ` AND ${c.live}` : ''}`,
    );
    for (const r of rows) if (typeof r.k === 'string' && KEY.test(r.k)) keys.add(r.k);
  }
  for (const c of JSON_KEY_COLUMNS) {
    const rows = await read(
      `SELECT ${c.column} AS j FROM ${c.table} WHERE ${c.column} IS NOT NULL${c.live ? ` AND ${c.live}` : ''}`,
    );
    for (const r of rows) for (const k of c.keysOf(String(r.j))) if (KEY.test(k)) keys.add(k);
  }
  return keys;
}

/** Of these keys, those the database still needs (a file may be deleted only when its key is not among them). */
export async function stillReferenced(read: RowReader, candidates: Iterable<string>): Promise<Set<string>> {
  const wanted = [...new Set(candidates)].filter((k) => KEY.test(k));
  const found = new Set<string>();
  if (!wanted.length) return found;
  for (let i = 0; i < wanted.length; i += 200) {
    const chunk = wanted.slice(i, i + 200);
    const marks = chunk.map(() => '?').join(', ');
    for (const c of KEY_COLUMNS) {
      const rows = await read(
        `SELECT DISTINCT ${c.column} AS k FROM ${c.table} WHERE ${c.column} IN (${marks})${c.live ? ` AND ${c.live}` : ''}`,
        chunk,
      );
      for (const r of rows) found.add(String(r.k));
    }
  }
  // Attachments sit inside JSON: read the candidates' parties' fields whole (few rows have any).
  for (const c of JSON_KEY_COLUMNS) {
    const rows = await read(
      `SELECT ${c.column} AS j FROM ${c.table} WHERE ${c.column} LIKE '%"key"%'${c.live ? ` AND ${c.live}` : ''}`,
    );
    for (const r of rows) for (const k of c.keysOf(String(r.j))) if (wanted.includes(k)) found.add(k);
  }
  return found;
}
