import 'reflect-metadata';
import { getMetadataArgsStorage } from 'typeorm';
import { JSON_KEY_COLUMNS, KEY_COLUMNS } from './document-references';
import { ENTITIES } from './entities';

/**
 * Backups, retention and erasure trust KEY_COLUMNS to name every column holding a document's storage key (64 hex
 * characters): an entity that gains one must be listed, or a backup would leave its documents out and retention
 * could delete a file still needed.
 */
describe('document references', () => {
  const storage = getMetadataArgsStorage();
  const tableOf = (target: unknown) => storage.tables.find((t) => t.target === target)?.name;

  it('lists every storage-key column of every entity', () => {
    const found: string[] = [];
    for (const entity of ENTITIES)
      for (const c of storage.columns.filter((col) => col.target === entity)) {
        const name = c.options.name ?? c.propertyName;
        if (/_key$/.test(name) && c.options.length === 64) found.push(`${tableOf(entity)}.${name}`);
      }
    const listed = KEY_COLUMNS.map((c) => `${c.table}.${c.column}`);
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter((f) => !listed.includes(f))).toEqual([]);
    // And nothing listed that no entity has (a renamed column would make the backup's query fail).
    expect(listed.filter((l) => !found.includes(l))).toEqual([]);
  });

  it('reads the attachments inside a party’s fields', () => {
    const [fields] = JSON_KEY_COLUMNS;
    const key = 'a'.repeat(64);
    expect(fields.keysOf(JSON.stringify([{ attachment: { key } }, { attachment: null }, {}]))).toEqual([key]);
    expect(fields.keysOf('not json')).toEqual([]);
    expect(fields.keysOf('null')).toEqual([]);
  });
});
