import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { containsPattern, LIKE_ESCAPE } from '../../common/rest-query';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/**
 * How many requests and drafts each organisation lists (not deleted, listed: a draft once saved), kept exact by
 * triggers on `requests`, so the console's unfiltered list reads its total in one row instead of counting every index
 * entry (6 ms at 90,000 requests in SQLite, most of a page's time; 0.1-1 s in MariaDB). Triggers see every write,
 * whatever code or SQL makes it.
 *
 * SQLite's are made at start rather than in a migration: SQLite migrations that change `requests` rebuild the table,
 * which drops its triggers. Whenever one is missing, all are made again and the counts are recomputed in one
 * transaction, before the first request is served. MySQL/MariaDB's table and triggers come from the migration
 * RequestCounts1795900000000 (an ALTER keeps triggers there).
 */
@Injectable()
export class RequestCounts implements OnModuleInit {
  private readonly log = new Logger('RequestCounts');
  private enabled = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.database.engine !== 'sqlite') {
      this.enabled = true;
      return;
    }
    const present = (
      (await this.db.query(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'requests' AND (name LIKE 'request!_counts!_%' ESCAPE '!' OR name LIKE 'request!_names!_%' ESCAPE '!')",
      )) as { name: string }[]
    ).map((row) => row.name);
    const current = TRIGGERS.map((t) => t.name);
    const upToDate = present.length === current.length && current.every((name) => present.includes(name));
    if (!upToDate) {
      await this.db.transaction(async (m) => {
        await m.query(`CREATE TABLE IF NOT EXISTS request_counts (
          org_id varchar(64) NOT NULL,
          is_draft boolean NOT NULL,
          n integer NOT NULL,
          PRIMARY KEY (org_id, is_draft))`);
        await m.query(`CREATE TABLE IF NOT EXISTS request_names (
          org_id varchar(64) NOT NULL,
          is_draft boolean NOT NULL,
          ref_id bigint NOT NULL,
          name text NOT NULL,
          PRIMARY KEY (org_id, is_draft, ref_id)) WITHOUT ROWID`);
        for (const name of [...OBSOLETE_TRIGGERS, ...TRIGGERS.map((t) => t.name)])
          await m.query(`DROP TRIGGER IF EXISTS ${name}`);
        for (const t of TRIGGERS) await m.query(t.sql);
        await m.query('DELETE FROM request_counts');
        await m.query(`INSERT INTO request_counts (org_id, is_draft, n)
          SELECT org_id, is_draft, COUNT(*) FROM requests WHERE ${LISTED('requests')} GROUP BY org_id, is_draft`);
        await m.query('DELETE FROM request_names');
        await m.query(`INSERT INTO request_names (org_id, is_draft, ref_id, name)
          SELECT org_id, is_draft, ref_id, ${NAME('requests')} FROM requests WHERE ${LISTED('requests')}`);
      });
      this.log.log('request counts and names rebuilt');
    }
    this.enabled = true;
  }

  /** The organisation's listed requests (or drafts), not deleted; null before onModuleInit made the SQLite triggers. */
  async total(orgId: string, drafts: boolean): Promise<number | null> {
    if (!this.enabled) return null;
    const rows = (await this.db.query('SELECT n FROM request_counts WHERE org_id = ? AND is_draft = ?', [
      orgId,
      drafts ? 1 : 0,
    ])) as { n: number }[];
    return rows.length ? Number(rows[0].n) : 0;
  }

  /**
   * How many of the organisation's listed requests (or drafts) have `text` in their file name, case aside: the same
   * rows as the list's `filename LIKE containsPattern(text)` on `requests`, counted on request_names (the listed rows'
   * names only, a quarter of the width of the list index's entries). SQLite keeps the names lowercased (lower() and
   * LIKE both fold ASCII only) and finds the text with instr(), cheaper than LIKE's matcher; MySQL/MariaDB keeps the
   * name in the column's own collation and matches with LIKE, so case and accents count as they do on `requests`.
   * Null before onModuleInit made the SQLite triggers.
   */
  async matching(orgId: string, drafts: boolean, text: string): Promise<number | null> {
    if (!this.enabled) return null;
    const sqlite = this.config.database.engine === 'sqlite';
    const rows = (await this.db.query(
      `SELECT COUNT(*) AS n FROM request_names WHERE org_id = ? AND is_draft = ? AND ${
        sqlite ? 'instr(name, ?) > 0' : `name LIKE ? ${LIKE_ESCAPE}`
      }`,
      [orgId, drafts ? 1 : 0, sqlite ? text.toLowerCase() : containsPattern(text)],
    )) as { n: unknown }[];
    return Number(rows[0].n);
  }
}

/** What request_names keeps of a file name in SQLite: lowercased (ASCII, as LIKE folds). */
const NAME = (row: string) => `lower(${row}.filename)`;

const add = (org: string, draft: string, delta: number) =>
  `INSERT INTO request_counts (org_id, is_draft, n) VALUES (${org}, ${draft}, ${delta})
     ON CONFLICT (org_id, is_draft) DO UPDATE SET n = n + (${delta});`;

/** A row the lists show: not deleted, and listed (a draft is listed once saved; see RequestEntity.listedAt). */
const LISTED = (row: string) => `${row}.deleted_at IS NULL AND ${row}.listed_at IS NOT NULL`;

/** Triggers of earlier versions (before listed_at), dropped when the current ones are made. */
const OBSOLETE_TRIGGERS = [
  'request_counts_insert',
  'request_counts_delete',
  'request_counts_leave',
  'request_counts_enter',
];

// Named with the version of their rule: a start that finds the older set (or none) drops it and makes these.
// request_names holds one row per listed request: out on any change of the key, listing or name, back in if listed
// (one trigger, so the delete always runs before the insert).
const TRIGGERS = [
  {
    name: 'request_names_insert',
    sql: `CREATE TRIGGER request_names_insert AFTER INSERT ON requests WHEN ${LISTED('NEW')}
      BEGIN INSERT INTO request_names (org_id, is_draft, ref_id, name)
        VALUES (NEW.org_id, NEW.is_draft, NEW.ref_id, ${NAME('NEW')}); END`,
  },
  {
    name: 'request_names_delete',
    sql: `CREATE TRIGGER request_names_delete AFTER DELETE ON requests WHEN ${LISTED('OLD')}
      BEGIN DELETE FROM request_names WHERE org_id = OLD.org_id AND is_draft = OLD.is_draft AND ref_id = OLD.ref_id; END`,
  },
  {
    name: 'request_names_update',
    sql: `CREATE TRIGGER request_names_update
      AFTER UPDATE OF ref_id, org_id, is_draft, deleted_at, listed_at, filename ON requests
      BEGIN
        DELETE FROM request_names WHERE org_id = OLD.org_id AND is_draft = OLD.is_draft AND ref_id = OLD.ref_id;
        INSERT INTO request_names (org_id, is_draft, ref_id, name)
          SELECT NEW.org_id, NEW.is_draft, NEW.ref_id, ${NAME('NEW')} WHERE ${LISTED('NEW')};
      END`,
  },
  {
    name: 'request_counts_listed_insert',
    sql: `CREATE TRIGGER request_counts_listed_insert AFTER INSERT ON requests WHEN ${LISTED('NEW')}
      BEGIN ${add('NEW.org_id', 'NEW.is_draft', 1)} END`,
  },
  {
    name: 'request_counts_listed_delete',
    sql: `CREATE TRIGGER request_counts_listed_delete AFTER DELETE ON requests WHEN ${LISTED('OLD')}
      BEGIN ${add('OLD.org_id', 'OLD.is_draft', -1)} END`,
  },
  {
    name: 'request_counts_listed_leave',
    sql: `CREATE TRIGGER request_counts_listed_leave AFTER UPDATE OF org_id, is_draft, deleted_at, listed_at ON requests
      WHEN ${LISTED('OLD')} BEGIN ${add('OLD.org_id', 'OLD.is_draft', -1)} END`,
  },
  {
    name: 'request_counts_listed_enter',
    sql: `CREATE TRIGGER request_counts_listed_enter AFTER UPDATE OF org_id, is_draft, deleted_at, listed_at ON requests
      WHEN ${LISTED('NEW')} BEGIN ${add('NEW.org_id', 'NEW.is_draft', 1)} END`,
  },
];
