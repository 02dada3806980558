import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { ENTITIES } from './entities';
import { MYSQL_MIGRATIONS } from './migrations/mysql';
import { SQLITE_MIGRATIONS } from './migrations/sqlite';

/**
 * SQLite (better-sqlite3, WAL) by default; MySQL/MariaDB when DATABASE_URL is set. Migrations run at start, one set
 * per engine; nothing relies on synchronize.
 */
export function dataSourceOptions(config: Pick<AppConfig, 'database'>, withMigrations = true): DataSourceOptions {
  const db = config.database;
  if (db.engine === 'sqlite') {
    mkdirSync(dirname(db.file), { recursive: true });
    return {
      type: 'better-sqlite3',
      database: db.file,
      enableWAL: true,
      // Writers wait for each other instead of failing with SQLITE_BUSY.
      timeout: 10_000,
      entities: ENTITIES,
      migrations: withMigrations ? SQLITE_MIGRATIONS : [],
      migrationsRun: withMigrations,
      migrationsTransactionMode: 'each',
      synchronize: false,
    };
  }
  return {
    type: db.flavour,
    url: db.url,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    entities: ENTITIES,
    migrations: withMigrations ? MYSQL_MIGRATIONS : [],
    migrationsRun: withMigrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    poolSize: 10,
  };
}

export const createDataSource = (config: Pick<AppConfig, 'database'>, withMigrations = true) =>
  new DataSource(dataSourceOptions(config, withMigrations));
