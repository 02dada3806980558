/**
 * A throwaway MariaDB for the benchmarks (lists.mjs): Debian's mariadbd on a free loopback port with a fresh data
 * directory in /tmp, stopped and deleted afterwards; no system service is touched (as api/test/support/mariadb-server.ts
 * does for the tests).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freePort, repoRoot } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const mysql = require('mysql2/promise');

export const SERVER = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((f) => fs.existsSync(f));
const INSTALL = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((f) => fs.existsSync(f));

/** Starts one; answers { url (mariadb://… of database `database`), mysqlUrl, stop() }. */
export async function startMariaDb(database) {
  if (!SERVER || !INSTALL) throw new Error('MariaDB is not installed: apt-get install mariadb-server');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-bench-mariadb-'));
  const datadir = path.join(dir, 'data');
  const socket = path.join(dir, 'mysqld.sock');
  const user = process.getuid?.() === 0 ? ['--user=root'] : [];
  const init = spawnSync(
    INSTALL,
    ['--no-defaults', `--datadir=${datadir}`, '--auth-root-authentication-method=socket', '--skip-test-db', ...user],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`mariadb-install-db failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const child = spawn(
    SERVER,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${path.join(dir, 'mysqld.pid')}`,
      `--log-error=${path.join(dir, 'error.log')}`,
      '--innodb-buffer-pool-size=256M',
      '--innodb-flush-log-at-trx-commit=2',
      '--skip-log-bin',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_unicode_ci',
      ...user,
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  child.once('exit', () => (exited = true));
  for (let i = 0; ; i++) {
    if (exited) throw new Error('mariadbd exited at start');
    try {
      const admin = await mysql.createConnection({ socketPath: socket, user: 'root' });
      await admin.query("CREATE USER IF NOT EXISTS 'esign'@'127.0.0.1' IDENTIFIED BY 'esign'");
      await admin.query("GRANT ALL PRIVILEGES ON *.* TO 'esign'@'127.0.0.1'");
      await admin.query(`CREATE DATABASE \`${database}\``);
      await admin.end();
      break;
    } catch (err) {
      if (i > 240) {
        child.kill('SIGKILL');
        throw err;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    url: `mariadb://esign:esign@127.0.0.1:${port}/${database}`,
    mysqlUrl: `mysql://esign:esign@127.0.0.1:${port}/${database}`,
    stop: async () => {
      if (!exited) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]);
        if (!exited) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
