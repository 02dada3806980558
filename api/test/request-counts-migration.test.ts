import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { dataSourceOptions } from '../src/database/data-source';
import { MYSQL_MIGRATIONS } from '../src/database/migrations/mysql';
import { SQLITE_MIGRATIONS } from '../src/database/migrations/sqlite';
import { RequestCounts } from '../src/modules/requests/request-counts';
import { engine, freshDatabase } from './support/test-app';

/**
 * Issue 23: a database that already holds requests gets request_counts and request_names filled from them (MySQL and
 * MariaDB by the migration RequestCounts1795900000000, which also comes down; SQLite by RequestCounts at start), and
 * its triggers keep both from then on.
 */
describe(`request_counts and request_names on an existing database (${engine})`, () => {
  const mysql = engine !== 'sqlite';
  const migrations = mysql ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS;
  const index = migrations.findIndex((m) => /^RequestCounts\d+$/.test(m.name));
  // [ref_id, org_id, filename, is_draft, deleted, listed]
  const rows: [number, string, string, number, boolean, boolean][] = [
    [1000000001, 'acme', 'Lease Agreement.pdf', 0, false, true],
    [1000000002, 'acme', 'lease-renewal.pdf', 0, false, true],
    [1000000003, 'acme', 'NDA.pdf', 0, true, true],
    [1000000004, 'acme', 'Offer LEASE.pdf', 1, false, true],
    [1000000005, 'acme', 'unsaved lease.pdf', 1, false, false],
    [1000000006, 'globex', 'lease.pdf', 0, false, true],
  ];
  const insert = (ds: DataSource, [refId, orgId, filename, draft, deleted, listed]: (typeof rows)[number]) =>
    ds.query(
      `INSERT INTO requests (ref_id, org_id, filename, file_key, file_size, total_pages, geometry, check_order,
        otp_required, reminder, status, is_draft, signers_total, signers_done, created_by, deleted_at, listed_at,
        created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1, '[]', 0, 0, 0, ?, ?, 1, 0, 'u', ?, ?, ?, ?)`,
      [
        refId,
        orgId,
        filename,
        'f'.repeat(64),
        draft ? 'draft' : 'in-progress',
        draft,
        deleted ? '2026-01-02 00:00:00' : null,
        listed ? '2026-01-01 00:00:00' : null,
        '2026-01-01 00:00:00',
        '2026-01-01 00:00:00',
      ],
    );
  const counts = async (ds: DataSource) =>
    (
      (await ds.query('SELECT org_id, is_draft, n FROM request_counts ORDER BY org_id, is_draft')) as {
        org_id: string;
        is_draft: number;
        n: number;
      }[]
    ).map((r) => [r.org_id, Number(r.is_draft), Number(r.n)]);
  const names = async (ds: DataSource) =>
    (
      (await ds.query('SELECT ref_id, name FROM request_names ORDER BY ref_id')) as { ref_id: number; name: string }[]
    ).map((r) => [Number(r.ref_id), r.name]);
  /** What both tables hold for `rows` (SQLite keeps names lowercased). */
  const expected = (extra: [number, string][] = []) => ({
    counts: [
      ['acme', 0, 2],
      ['acme', 1, 1],
      ['globex', 0, 1],
    ],
    names: [
      [1000000001, 'Lease Agreement.pdf'],
      [1000000002, 'lease-renewal.pdf'],
      [1000000004, 'Offer LEASE.pdf'],
      [1000000006, 'lease.pdf'],
      ...extra,
    ].map(([id, name]) => [id, mysql ? name : String(name).toLowerCase()]),
  });

  it('fills both tables from the rows there, keeps them on later writes (and the MySQL migration comes down)', async () => {
    expect(index).toBe(mysql ? migrations.length - 1 : -1);
    const database = await freshDatabase();
    const config = loadConfig({ NODE_ENV: 'test', ...database.env });
    const before = new DataSource({
      ...dataSourceOptions(config),
      migrations: mysql ? migrations.slice(0, index) : migrations,
    });
    let ds: DataSource | undefined;
    try {
      await before.initialize();
      for (const row of rows) await insert(before, row);
      await before.destroy();

      ds = new DataSource({ ...dataSourceOptions(config), migrations });
      await ds.initialize();
      if (!mysql) await new RequestCounts(ds, config).onModuleInit();
      expect({ counts: await counts(ds), names: await names(ds) }).toEqual(expected());

      // Later writes: a new listed request, a rename, a deletion.
      await insert(ds, [1000000007, 'acme', 'Third Lease.pdf', 0, false, true]);
      await ds.query('UPDATE requests SET filename = ? WHERE ref_id = ?', ['Renamed.pdf', 1000000001]);
      await ds.query('UPDATE requests SET deleted_at = ? WHERE ref_id = ?', ['2026-01-03 00:00:00', 1000000002]);
      const after = expected([[1000000007, 'Third Lease.pdf']]);
      after.names = after.names.filter(([id]) => id !== 1000000002);
      after.names[0] = [1000000001, mysql ? 'Renamed.pdf' : 'renamed.pdf'];
      expect({ counts: await counts(ds), names: await names(ds) }).toEqual(after);

      if (mysql) {
        const collations = (await ds.query(
          "SELECT table_name AS t, COLLATION_NAME AS c FROM information_schema.columns WHERE table_schema = DATABASE() AND ((table_name = 'requests' AND column_name = 'filename') OR (table_name = 'request_names' AND column_name = 'name'))",
        )) as { t: string; c: string }[];
        expect(collations).toHaveLength(2);
        expect(collations[0].c).toBe(collations[1].c);
        await ds.undoLastMigration();
        const left = (await ds.query(
          "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ('request_counts', 'request_names')",
        )) as unknown[];
        expect(left).toEqual([]);
        expect((await ds.query('SHOW TRIGGERS')) as unknown[]).toEqual([]);
        await ds.runMigrations();
        expect({ counts: await counts(ds), names: await names(ds) }).toEqual(after);
      }
    } finally {
      if (before.isInitialized) await before.destroy();
      if (ds?.isInitialized) await ds.destroy();
      await database.drop();
    }
  });
});
