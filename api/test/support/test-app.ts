import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort, mysqlUrl } from './mariadb-server';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import type { AppOverrides } from '../../src/app.module';
import { Clock } from '../../src/common/clock';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { UsersService } from '../../src/modules/auth/users.service';
import { OrganisationsService } from '../../src/modules/organisations/organisations.service';

/** A clock the test moves by hand. */
export class FakeClock extends Clock {
  private t = Date.parse('2026-11-22T09:00:00.000Z');
  now(): Date {
    return new Date(this.t);
  }
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
}

export const engine = (process.env.DB_ENGINE ?? 'sqlite') as 'sqlite' | 'mariadb';

export interface TestApp {
  app: INestApplication;
  http: TestAgent;
  config: AppConfig;
  clock: FakeClock;
  db: DataSource;
  /** DATA_DIR, DATABASE_URL and PUBLIC_URL of this app, for a management command run beside it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A fresh database on the engine under test (a new SQLite file, or a new MariaDB database). */
export async function freshDatabase(): Promise<{
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'esign-test-'));
  if (engine === 'sqlite') {
    return { env: { DATA_DIR: dataDir }, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const base = process.env.MARIADB_BASE_URL;
  if (!base) throw new Error('MARIADB_BASE_URL is not set: the global setup starts MariaDB when DB_ENGINE=mariadb');
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await createConnection(mysqlUrl(`${base}mysql`));
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: `${base}${name}` },
    dataDir,
    drop: async () => {
      const c = await createConnection(mysqlUrl(`${base}mysql`));
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const withoutLogLevel = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'LOG_LEVEL'));

export async function startTestApp(
  env: Record<string, string> = {},
  overrides: Omit<AppOverrides, 'clock'> = {},
): Promise<TestApp> {
  const database = await freshDatabase();
  const clock = new FakeClock();
  const web = join(database.dataDir, 'web');
  for (const [name, marker] of [
    ['admin', 'console-app'],
    ['signer', 'signer-app'],
  ]) {
    mkdirSync(join(web, name), { recursive: true });
    writeFileSync(join(web, name, 'index.html'), `<!doctype html><title>${marker}</title>`);
  }
  // Unless the test names another PUBLIC_URL, the app listens where its certificates' OCSP and CRL URLs point (AIA, CRL
  // distribution points), so pdfsig, which asks the OCSP responder of every certificate it checks, is answered.
  const port = env.PUBLIC_URL ? null : await freePort();
  const publicUrl = env.PUBLIC_URL ?? `http://127.0.0.1:${port}`;
  const config = {
    ...loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...database.env, PUBLIC_URL: publicUrl, ...env }),
    webRoots: { admin: join(web, 'admin'), signer: join(web, 'signer') },
  };
  const { app } = await createApp(config, { ...overrides, clock });
  await app.init();
  if (port !== null) await app.listen(port, '127.0.0.1');
  return {
    app,
    http: request(app.getHttpServer()),
    config,
    clock,
    db: app.get(DataSource),
    // The same settings for a management command run beside it (the test's own variables, such as TSA_URLS, too).
    env: { NODE_ENV: 'test', ...database.env, PUBLIC_URL: publicUrl, ...withoutLogLevel(env) },
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

export async function createOrgWithUser(
  t: TestApp,
  orgId: string,
  username = `${orgId}-admin`,
  password = 'correct horse battery',
): Promise<{ orgId: string; username: string; password: string }> {
  await t.app.get(OrganisationsService).create({ id: orgId, name: `Org ${orgId}`, tag: `${orgId}-tag` });
  await t.app.get(UsersService).create(orgId, username, password);
  return { orgId, username, password };
}

export async function signIn(t: TestApp, username: string, password: string): Promise<string> {
  const res = await t.http.get(`/consumers/${username}/key-auth`).auth(username, password).expect(200);
  return res.body.data[0].key as string;
}

/** A long-lived organisation API key (for tests that move the clock past a session's idle expiry). */
export async function orgApiKey(t: TestApp, orgId: string, name = 'test'): Promise<string> {
  const { AuthService } = await import('../../src/modules/auth/auth.service');
  return (await t.app.get(AuthService).createOrgKey(orgId, name)).key;
}
