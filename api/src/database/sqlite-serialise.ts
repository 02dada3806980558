import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';

/**
 * TypeORM's better-sqlite3 driver has ONE connection and one shared query runner. Without this, a statement of any
 * other request issued while a transaction awaits something runs inside that transaction (and is rolled back with
 * it), and two transactions interleave their statements. This makes SQLite behave like the MySQL pool: transactions
 * run one at a time, and a statement from outside the running transaction waits until it has ended.
 *
 * The owner of the running transaction is tracked with AsyncLocalStorage, so the transaction's own statements (and
 * nested transactions, which become savepoints) pass straight through.
 */
const readGates = new WeakMap<DataSource, () => boolean>();

/**
 * Whether a statement may run on the one connection right now, as the serialised query runner would let it: no
 * transaction is running, or the caller is inside the running one. Undefined: not a serialised SQLite data source.
 * RowReader reads straight from better-sqlite3 when it answers true (synchronously: nothing can begin in between),
 * and through the query runner, which waits, when it answers false.
 */
export function sqliteReadGate(ds: DataSource): (() => boolean) | undefined {
  return readGates.get(ds);
}

export function serialiseSqlite(ds: DataSource): DataSource {
  const type = ds.options.type;
  if (type !== 'better-sqlite3') return ds;

  const owner = new AsyncLocalStorage<symbol>();
  let holder: symbol | null = null;
  let tail: Promise<unknown> = Promise.resolve();
  readGates.set(ds, () => holder === null || owner.getStore() === holder);

  const manager = ds.manager;
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  (manager as { transaction: unknown }).transaction = (...args: unknown[]) => {
    const mine = owner.getStore();
    if (mine && mine === holder) return transaction(...args);
    const run = async () => {
      const id = Symbol('transaction');
      holder = id;
      try {
        return await owner.run(id, () => transaction(...args));
      } finally {
        holder = null;
      }
    };
    const result = tail.then(run, run);
    tail = result.catch(() => undefined);
    return result;
  };

  const runner = ds.driver.createQueryRunner('master') as QueryRunner;
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  (runner as { query: unknown }).query = async (...args: unknown[]) => {
    while (holder !== null && owner.getStore() !== holder) await tail;
    return query(...args);
  };
  return ds;
}
