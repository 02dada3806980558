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
    const indexed = (
      (await this.db.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('request_names_fts', 'request_name_scopes')",
      )) as { name: string }[]
    ).length;
    const upToDate =
      indexed === 2 && present.length === current.length && current.every((name) => present.includes(name));
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
        // The trigram index of the same names, made anew (a virtual table cannot be emptied and refilled as cheaply).
        await m.query(`CREATE TABLE IF NOT EXISTS request_name_scopes (
          no integer PRIMARY KEY,
          org_id varchar(64) NOT NULL,
          is_draft boolean NOT NULL,
          UNIQUE (org_id, is_draft))`);
        await m.query('DROP TABLE IF EXISTS request_names_fts');
        await m.query(`CREATE VIRTUAL TABLE request_names_fts USING fts5(name, content='', contentless_delete=1,
          tokenize='trigram case_sensitive 1')`);
        await m.query(`INSERT OR IGNORE INTO request_name_scopes (org_id, is_draft)
          SELECT DISTINCT org_id, is_draft FROM request_names`);
        await m.query(`INSERT INTO request_names_fts (rowid, name)
          SELECT s.no * ${SCOPE_SPAN} + n.ref_id, n.name FROM request_names n
          JOIN request_name_scopes s ON s.org_id = n.org_id AND s.is_draft = n.is_draft`);
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
   * rows as the list's `filename LIKE containsPattern(text)` on `requests`. SQLite keeps the names lowercased (lower()
   * and LIKE both fold ASCII only): text of 3 characters or more is looked up in their trigram index (nameIndex),
   * shorter text is found with instr() on request_names, cheaper than LIKE's matcher. MySQL/MariaDB keeps the name in
   * the column's own collation and matches with LIKE on request_names, so case and accents count as they do on
   * `requests`. Null before onModuleInit made the SQLite triggers. `indexed`: nameIndex's answer for the same text,
   * when the caller has asked it already.
   */
  async matching(
    orgId: string,
    drafts: boolean,
    text: string,
    indexed?: Awaited<ReturnType<RequestCounts['nameIndex']>>,
  ): Promise<number | null> {
    if (!this.enabled) return null;
    if (indexed === undefined) indexed = await this.nameIndex(orgId, drafts, text);
    if (indexed === false) return 0;
    if (indexed) {
      const rows = (await this.db.query(
        'SELECT COUNT(*) AS n FROM request_names_fts WHERE request_names_fts MATCH ? AND rowid BETWEEN ? AND ?',
        indexed.slice(1),
      )) as { n: unknown }[];
      return Number(rows[0].n);
    }
    const sqlite = this.config.database.engine === 'sqlite';
    const rows = (await this.db.query(
      `SELECT COUNT(*) AS n FROM request_names WHERE org_id = ? AND is_draft = ? AND ${
        sqlite ? 'instr(name, ?) > 0' : `name LIKE ? ${LIKE_ESCAPE}`
      }`,
      [orgId, drafts ? 1 : 0, sqlite ? text.toLowerCase() : containsPattern(text)],
    )) as { n: unknown }[];
    return Number(rows[0].n);
  }

  /**
   * SQLite, text of 3 characters or more: where the organisation's listed names holding `text` are in the trigram
   * index (NAMES_MATCHING's parameters), or false when the organisation has never listed one. Null where there is no
   * index to ask: MySQL/MariaDB, shorter text (no trigram), before onModuleInit.
   *
   * request_names_fts is contentless: its rowid is the (organisation, draft) scope's number × SCOPE_SPAN + the Ref ID
   * (Ref IDs are 10 digits, below SCOPE_SPAN), so one organisation's names are one rowid range and a count never
   * joins back to another table. The tokenizer keeps case (the names are already lowercased as LIKE folds them), so
   * a phrase of the lowercased text matches exactly the names instr() finds.
   */
  async nameIndex(orgId: string, drafts: boolean, text: string): Promise<unknown[] | false | null> {
    if (!this.enabled || this.config.database.engine !== 'sqlite') return null;
    if ([...text].length < 3 || text.includes('\0')) return null;
    const [scope] = (await this.db.query('SELECT no FROM request_name_scopes WHERE org_id = ? AND is_draft = ?', [
      orgId,
      drafts ? 1 : 0,
    ])) as { no: number }[];
    if (!scope) return false;
    const from = Number(scope.no) * SCOPE_SPAN;
    return [from, `"${text.toLowerCase().replace(/"/g, '""')}"`, from, from + SCOPE_SPAN - 1];
  }
}

/** Ref IDs per (organisation, draft) scope in request_names_fts' rowids: 2^36, above every 10-digit Ref ID. */
const SCOPE_SPAN = 2 ** 36;

/** The Ref IDs of the names in request_names_fts matching a phrase, in one scope (parameters: nameIndex's answer). */
export const NAMES_MATCHING =
  'SELECT rowid - ? AS ref_id FROM request_names_fts WHERE request_names_fts MATCH ? AND rowid BETWEEN ? AND ?';

/** What request_names keeps of a file name in SQLite: lowercased (ASCII, as LIKE folds). */
const NAME = (row: string) => `lower(${row}.filename)`;

const add = (org: string, draft: string, delta: number) =>
  `INSERT INTO request_counts (org_id, is_draft, n) VALUES (${org}, ${draft}, ${delta})
     ON CONFLICT (org_id, is_draft) DO UPDATE SET n = n + (${delta});`;

/** A row the lists show: not deleted, and listed (a draft is listed once saved; see RequestEntity.listedAt). */
const LISTED = (row: string) => `${row}.deleted_at IS NULL AND ${row}.listed_at IS NOT NULL`;

/** The rowid of a row's name in request_names_fts (its scope's number × SCOPE_SPAN + its Ref ID; see nameIndex). */
const FTS_ROWID = (row: string) =>
  `(SELECT no FROM request_name_scopes WHERE org_id = ${row}.org_id AND is_draft = ${row}.is_draft) * ${SCOPE_SPAN} + ${row}.ref_id`;

/** A row's name into request_names_fts, its scope numbered on its first name (when `listed`, a condition). */
const INDEX_NAME = (row: string, listed = '1') =>
  `INSERT OR IGNORE INTO request_name_scopes (org_id, is_draft) SELECT ${row}.org_id, ${row}.is_draft WHERE ${listed};
        INSERT INTO request_names_fts (rowid, name) SELECT ${FTS_ROWID(row)}, ${NAME(row)} WHERE ${listed};`;

/** Triggers of earlier versions (before listed_at), dropped when the current ones are made. */
const OBSOLETE_TRIGGERS = [
  'request_names_insert',
  'request_names_delete',
  'request_names_update',
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
    name: 'request_names_insert_v2',
    sql: `CREATE TRIGGER request_names_insert_v2 AFTER INSERT ON requests WHEN ${LISTED('NEW')}
      BEGIN
        INSERT INTO request_names (org_id, is_draft, ref_id, name)
          VALUES (NEW.org_id, NEW.is_draft, NEW.ref_id, ${NAME('NEW')});
        ${INDEX_NAME('NEW')}
      END`,
  },
  {
    name: 'request_names_delete_v2',
    sql: `CREATE TRIGGER request_names_delete_v2 AFTER DELETE ON requests WHEN ${LISTED('OLD')}
      BEGIN
        DELETE FROM request_names WHERE org_id = OLD.org_id AND is_draft = OLD.is_draft AND ref_id = OLD.ref_id;
        DELETE FROM request_names_fts WHERE rowid = ${FTS_ROWID('OLD')};
      END`,
  },
  {
    name: 'request_names_update_v2',
    sql: `CREATE TRIGGER request_names_update_v2
      AFTER UPDATE OF ref_id, org_id, is_draft, deleted_at, listed_at, filename ON requests
      BEGIN
        DELETE FROM request_names WHERE org_id = OLD.org_id AND is_draft = OLD.is_draft AND ref_id = OLD.ref_id;
        DELETE FROM request_names_fts WHERE rowid = ${FTS_ROWID('OLD')} AND ${LISTED('OLD')};
        INSERT INTO request_names (org_id, is_draft, ref_id, name)
          SELECT NEW.org_id, NEW.is_draft, NEW.ref_id, ${NAME('NEW')} WHERE ${LISTED('NEW')};
        ${INDEX_NAME('NEW', LISTED('NEW'))}
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
