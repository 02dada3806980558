import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { sqliteReadGate } from './sqlite-serialise';

interface Statement {
  sql: string;
  select: string;
  order: string;
  columns: ColumnMetadata[];
  where: ColumnMetadata[];
  /** Per column, what a stored value becomes in the entity (TypeORM's own conversion, or none where it makes none). */
  convert: ((value: unknown) => unknown)[];
}

/** A better-sqlite3 prepared statement in raw mode: rows as arrays, in the SELECT's column order. */
interface RawStatement {
  all(...params: unknown[]): unknown[][];
}
interface SqliteConnection {
  prepare(sql: string): { raw(on: boolean): RawStatement };
}

/** Column types TypeORM's SQLite driver converts when it hydrates them; every other type (with no transformer) it keeps as stored. */
const CONVERTED_TYPES = new Set<unknown>([
  Boolean,
  'boolean',
  'datetime',
  Date,
  'date',
  'time',
  'json',
  'jsonb',
  'simple-json',
  'simple-array',
  'simple-enum',
  Number,
]);
const MAX_PREPARED = 256;

/**
 * A look-up by equal columns that the hot paths make on every call (the API key, the party of a link token, its
 * request, parties and organisation), as one SQL text built once: TypeORM's findOneBy/find build the query again on
 * each call (aliases, escaping, find options), which cost more CPU than SQLite takes to answer it. Rows are hydrated as
 * TypeORM hydrates them (the driver's own conversion and the columns' transformers), so callers get the same entities.
 *
 * On SQLite the statement is prepared once and read straight from better-sqlite3 as arrays (issue 23: TypeORM's query
 * runner and a row as an object cost more than SQLite's own work on the signing page's first call) whenever the
 * serialised connection lets a statement run now (sqliteReadGate); otherwise, and on MySQL/MariaDB, through the query
 * runner as before.
 */
export class RowReader<T extends ObjectLiteral> {
  private built?: Statement;
  private readonly prepared = new Map<string, RawStatement>();

  /**
   * `where`: the properties compared for equality, in the order their values are given; `orderBy`: a property the
   * rows are sorted by, ascending. Only `select` is read when given (the columns a view shows).
   */
  constructor(
    private readonly db: DataSource,
    private readonly entity: EntityTarget<T>,
    private readonly where: readonly (keyof T & string)[],
    private readonly options: { orderBy?: keyof T & string; select?: readonly (keyof T & string)[] } = {},
  ) {}

  /** The first row (there is at most one where `where` is unique), or null. */
  async one(values: readonly unknown[], manager: EntityManager = this.db.manager): Promise<T | null> {
    const rows = await this.query(values, manager, 1);
    return rows[0] ?? null;
  }

  /** Every row, in `orderBy`'s order. */
  all(values: readonly unknown[], manager: EntityManager = this.db.manager): Promise<T[]> {
    return this.query(values, manager);
  }

  /**
   * The rows of `SELECT <the columns> FROM <the table> <tail>`: the caller's WHERE, ORDER BY and LIMIT, with `?`
   * parameters as the engine takes them (numbers for booleans; plain snake_case column names read on both engines).
   */
  async select(tail: string, params: readonly unknown[], manager: EntityManager = this.db.manager): Promise<T[]> {
    return this.rows(`${this.statement().select} ${tail}`, params, manager);
  }

  /** Every row whose one `where` column equals any of `values`, in `orderBy`'s order. */
  async anyOf(values: readonly unknown[], manager: EntityManager = this.db.manager): Promise<T[]> {
    if (!values.length) return [];
    const { select, where, order } = this.statement();
    if (where.length !== 1) throw new Error('anyOf compares one column');
    const driver = this.db.driver;
    const sql = `${select} WHERE ${driver.escape(where[0].databaseName)} IN (${values.map(() => '?').join(', ')})${order}`;
    return this.rows(
      sql,
      values.map((v) => driver.preparePersistentValue(v, where[0]) as unknown),
      manager,
    );
  }

  private query(values: readonly unknown[], manager: EntityManager, limit?: number): Promise<T[]> {
    const { sql, where } = this.statement();
    const driver = this.db.driver;
    const params = where.map((column, i) => driver.preparePersistentValue(values[i], column) as unknown);
    return this.rows(limit ? `${sql} LIMIT ${limit}` : sql, params, manager);
  }

  /** The entities of `sql` (which selects the statement's columns, in order). */
  private async rows(sql: string, params: readonly unknown[], manager: EntityManager): Promise<T[]> {
    const { columns, convert } = this.statement();
    const ready = sqliteReadGate(this.db);
    if (ready?.()) {
      // better-sqlite3 binds no booleans: 0/1, as TypeORM's runner passes them.
      const bound = params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
      return this.fromArrays(columns, convert, this.prepare(sql).all(...bound));
    }
    const raw = (await manager.query(sql, [...params])) as Record<string, unknown>[];
    return this.fromArrays(
      columns,
      convert,
      raw.map((row) => columns.map((column) => row[column.databaseName])),
    );
  }

  private prepare(sql: string): RawStatement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      if (this.prepared.size >= MAX_PREPARED) this.prepared.clear();
      const connection = (this.db.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
      statement = connection.prepare(sql).raw(true);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  private fromArrays(columns: ColumnMetadata[], convert: Statement['convert'], raw: unknown[][]): T[] {
    const metadata = this.db.getMetadata(this.entity);
    return raw.map((row) => {
      const entity = metadata.create() as T;
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i];
        const value = convert[i](row[i]);
        if (column.embeddedMetadata) column.setEntityValue(entity, value);
        else (entity as Record<string, unknown>)[column.propertyName] = value;
      }
      return entity;
    });
  }

  private statement(): Statement {
    if (this.built) return this.built;
    const metadata = this.db.getMetadata(this.entity);
    const driver = this.db.driver;
    const columnOf = (property: string): ColumnMetadata => {
      const column = metadata.findColumnWithPropertyPath(property);
      if (!column) throw new Error(`${metadata.name} has no column ${property}`);
      return column;
    };
    const columns = this.options.select ? this.options.select.map(columnOf) : metadata.columns;
    const where = this.where.map(columnOf);
    const escape = (c: ColumnMetadata) => driver.escape(c.databaseName);
    const select = `SELECT ${columns.map(escape).join(', ')} FROM ${driver.escape(metadata.tablePath)}`;
    const order = this.options.orderBy ? ` ORDER BY ${escape(columnOf(this.options.orderBy))} ASC` : '';
    const sql = where.length ? `${select} WHERE ${where.map((c) => `${escape(c)} = ?`).join(' AND ')}${order}` : '';
    // The identities hold for the SQLite driver only (MySQL's converts other types too).
    const sqlite = sqliteReadGate(this.db) !== undefined;
    const convert = columns.map((column) =>
      !sqlite || column.transformer || CONVERTED_TYPES.has(column.type)
        ? (value: unknown) => driver.prepareHydratedValue(value, column) as unknown
        : (value: unknown) => value,
    );
    this.built = { sql, select, order, columns, where, convert };
    return this.built;
  }
}
