import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import type { Encoded } from '../../common/http/direct-answers';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { sqliteReadGate } from '../../database/sqlite-serialise';

/** One answered page of a console list, as list-answer.ts sends it. */
export interface CachedPage {
  body: Buffer;
  /** Its compressed forms, made as callers ask for them (sendDirect). */
  encoded: Encoded;
  etag: string;
  /** Content-Range and X-Total-Count of the page. */
  headers: Record<string, string>;
}

interface Entry extends CachedPage {
  version: number;
  /** The clock's time (ms) the page was built at. */
  at: number;
}

/**
 * How long a page is answered again while nothing of its organisation changed: the links in it (document links, 12 h)
 * are then at most this much older than a new page's.
 */
export const LIST_PAGE_SECONDS = 60;
/** Pages kept at most (the least recently used goes first), and the longest page kept. */
const MAX_PAGES = 256;
const MAX_PAGE_BYTES = 256 * 1024;

interface SqliteConnection {
  prepare(sql: string): { get(...params: unknown[]): unknown };
}

/** A write version per organisation, moved by triggers on `requests` and `parties` (every column a list row shows). */
const TRIGGERS = (['requests', 'parties'] as const).flatMap((table) => {
  const bump = (row: 'NEW' | 'OLD') =>
    `INSERT INTO list_versions (org_id, v) VALUES (${row}.org_id, 1) ON CONFLICT (org_id) DO UPDATE SET v = v + 1;`;
  return [
    { name: `list_versions_${table}_insert_v1`, sql: `AFTER INSERT ON ${table} BEGIN ${bump('NEW')} END` },
    {
      name: `list_versions_${table}_update_v1`,
      sql: `AFTER UPDATE ON ${table} BEGIN ${bump('NEW')} ${bump('OLD')} END`,
    },
    { name: `list_versions_${table}_delete_v1`, sql: `AFTER DELETE ON ${table} BEGIN ${bump('OLD')} END` },
  ];
});

/**
 * The console's list pages as answered, kept while nothing of the organisation changed (issue 23: a console polls its
 * list far more often than the list changes, and building a page is most of its CPU).
 *
 * A page is answered again only when the organisation's write version is the one it was built at. SQLite's triggers
 * move that version in the same statement as any insert, update or delete of a request or a party of the
 * organisation, whatever code or process writes it (the server, `manage`, plain SQL), so a page never outlives
 * the rows it shows. The version is read before the page's rows: a write that lands while a page is being built leaves
 * it under the older version, and the next call builds it again. A page is also rebuilt after LIST_PAGE_SECONDS on the
 * product's clock (its links' expiry is computed when it is built) and whenever the clock went back.
 *
 * SQLite only (the embedded default, one server process): on MySQL/MariaDB every signature of an organisation would
 * update the same version row, a lock all its concurrent signings would queue on; there the lists are built each time.
 * The triggers are made at start, like request_counts' (a SQLite migration that rebuilds a table drops its triggers).
 * LIST_PAGES=off builds every page (the lists benchmark times the page's reads so).
 */
@Injectable()
export class ListPageCache implements OnModuleInit {
  private readonly log = new Logger('ListPageCache');
  private enabled = false;
  private readonly pages = new Map<string, Entry>();
  /** The version's prepared statement, and the connection it was prepared on (a reconnect makes a new one). */
  private statement: { connection: unknown; get(orgId: string): unknown } | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.database.engine !== 'sqlite' || !this.config.listPages) return;
    const present = new Set(
      (
        (await this.db.query(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'list!_versions!_%' ESCAPE '!'",
        )) as { name: string }[]
      ).map((row) => row.name),
    );
    if (!TRIGGERS.every((t) => present.has(t.name))) {
      await this.db.transaction(async (m) => {
        await m.query(`CREATE TABLE IF NOT EXISTS list_versions (
          org_id varchar(64) NOT NULL PRIMARY KEY,
          v integer NOT NULL) WITHOUT ROWID`);
        for (const t of TRIGGERS) await m.query(`CREATE TRIGGER IF NOT EXISTS ${t.name} ${t.sql}`);
      });
      this.log.log('list version triggers made');
    }
    this.enabled = true;
  }

  /** The organisation's write version now, or null when pages are not kept (not SQLite, or before start). */
  async version(orgId: string): Promise<number | null> {
    if (!this.enabled) return null;
    const open = sqliteReadGate(this.db);
    let row: { v: number } | undefined;
    if (open?.()) {
      // Outside any running transaction (the gate): what is committed, read straight from the one connection.
      const connection = (this.db.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
      if (this.statement?.connection !== connection) {
        const prepared = connection.prepare('SELECT v FROM list_versions WHERE org_id = ?');
        this.statement = { connection, get: (id) => prepared.get(id) };
      }
      row = this.statement.get(orgId) as { v: number } | undefined;
    } else {
      [row] = (await this.db.query('SELECT v FROM list_versions WHERE org_id = ?', [orgId])) as { v: number }[];
    }
    return row ? Number(row.v) : 0;
  }

  /** The page kept for `key` of the organisation, if it was built at `version` and is recent enough. */
  get(orgId: string, key: string, version: number): CachedPage | undefined {
    const id = `${orgId}\n${key}`;
    const entry = this.pages.get(id);
    if (!entry) return undefined;
    const age = this.clock.now().getTime() - entry.at;
    if (entry.version !== version || age < 0 || age >= LIST_PAGE_SECONDS * 1000) {
      this.pages.delete(id);
      return undefined;
    }
    // Most recently used last.
    this.pages.delete(id);
    this.pages.set(id, entry);
    return entry;
  }

  /** Keeps a page built after reading `version` (the clock's time now is its age's start). */
  put(orgId: string, key: string, version: number, page: CachedPage): void {
    if (page.body.length > MAX_PAGE_BYTES) return;
    const id = `${orgId}\n${key}`;
    this.pages.delete(id);
    this.pages.set(id, { ...page, version, at: this.clock.now().getTime() });
    while (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string);
  }
}
