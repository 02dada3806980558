import { startMariaDb, type MariaDbServer } from './mariadb-server';

/** With DB_ENGINE=mariadb, one real MariaDB server serves the whole run; each test file gets its own database. */
export default async function globalSetup(): Promise<void> {
  const engine = process.env.DB_ENGINE ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'mariadb')
    throw new Error(`DB_ENGINE must be sqlite or mariadb, not ${engine}`);
  process.stdout.write(
    `\nAPI suite on ${engine === 'mariadb' ? 'MariaDB (real server on 127.0.0.1)' : 'SQLite (better-sqlite3, WAL)'}\n`,
  );
  if (engine === 'mariadb' && !process.env.MARIADB_BASE_URL) {
    const server = await startMariaDb();
    (globalThis as { __mariadb?: MariaDbServer }).__mariadb = server;
    process.env.MARIADB_BASE_URL = server.baseUrl;
  }
}
