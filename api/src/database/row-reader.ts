import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

interface Statement {
  sql: string;
  select: string;
  order: string;
  columns: ColumnMetadata[];
  where: ColumnMetadata[];
}

/**
 * A look-up by equal columns that the hot paths make on every call (the API key, the party of a link token, its
 * request, parties and organisation), as one SQL text built once: TypeORM's findOneBy/find build the query again on
 * each call (aliases, escaping, find options), which cost more CPU than SQLite takes to answer it. Rows are hydrated as
 * TypeORM hydrates them (the driver's own conversion and the columns' transformers), so callers get the same entities.
 */
export class RowReader<T extends ObjectLiteral> {
  private built?: Statement;

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
    const { select, columns } = this.statement();
    return this.hydrate(columns, await manager.query(`${select} ${tail}`, [...params]));
  }

  /** Every row whose one `where` column equals any of `values`, in `orderBy`'s order. */
  async anyOf(values: readonly unknown[], manager: EntityManager = this.db.manager): Promise<T[]> {
    if (!values.length) return [];
    const { select, where, order, columns } = this.statement();
    if (where.length !== 1) throw new Error('anyOf compares one column');
    const driver = this.db.driver;
    const sql = `${select} WHERE ${driver.escape(where[0].databaseName)} IN (${values.map(() => '?').join(', ')})${order}`;
    return this.hydrate(
      columns,
      await manager.query(
        sql,
        values.map((v) => driver.preparePersistentValue(v, where[0]) as unknown),
      ),
    );
  }

  private async query(values: readonly unknown[], manager: EntityManager, limit?: number): Promise<T[]> {
    const { sql, columns, where } = this.statement();
    const driver = this.db.driver;
    const params = where.map((column, i) => driver.preparePersistentValue(values[i], column) as unknown);
    return this.hydrate(columns, await manager.query(limit ? `${sql} LIMIT ${limit}` : sql, params));
  }

  private hydrate(columns: ColumnMetadata[], raw: Record<string, unknown>[]): T[] {
    const driver = this.db.driver;
    const metadata = this.db.getMetadata(this.entity);
    return raw.map((row) => {
      const entity = metadata.create() as T;
      for (const column of columns) {
        column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
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
    this.built = { sql, select, order, columns, where };
    return this.built;
  }
}
