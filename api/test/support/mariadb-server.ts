import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/**
 * A real, throwaway MariaDB server for the tests: Debian's mariadb-server binaries, a fresh data directory in /tmp,
 * listening on 127.0.0.1 on a free port, stopped and deleted afterwards. No system service is touched.
 */
export interface MariaDbServer {
  /** mariadb://esign:esign@127.0.0.1:PORT/ — append a database name. */
  baseUrl: string;
  stop(): Promise<void>;
}

const SERVER_BINARIES = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'];
const INSTALL_BINARIES = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function startMariaDb(): Promise<MariaDbServer> {
  const server = SERVER_BINARIES.find(existsSync);
  const install = INSTALL_BINARIES.find(existsSync);
  if (!server || !install) {
    throw new Error(
      'MariaDB is not installed: run `apt-get install mariadb-server` (npm test does this when run as root).',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'esign-mariadb-'));
  const datadir = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const asRoot = process.getuid?.() === 0;
  const userArgs = asRoot ? ['--user=root'] : [];
  const init = spawnSync(
    install,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
      ...userArgs,
    ],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`mariadb-install-db failed: ${init.stderr || init.stdout}`);

  const port = await freePort();
  const errorLog = join(dir, 'error.log');
  const child: ChildProcess = spawn(
    server,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${errorLog}`,
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=16M',
      '--innodb-flush-log-at-trx-commit=2',
      '--skip-log-bin',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_unicode_ci',
      ...userArgs,
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  child.once('exit', () => (exited = true));

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`mariadbd exited at start:\n${safeRead(errorLog)}`);
    try {
      // With socket authentication the OS user root is the database's root.
      const admin = await createConnection({ socketPath: socket, user: 'root' });
      await admin.query("CREATE USER IF NOT EXISTS 'esign'@'127.0.0.1' IDENTIFIED BY 'esign'");
      await admin.query("GRANT ALL PRIVILEGES ON *.* TO 'esign'@'127.0.0.1' WITH GRANT OPTION");
      await admin.end();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`MariaDB did not start in 60 s: ${(err as Error).message}\n${safeRead(errorLog)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  return {
    baseUrl: `mariadb://esign:esign@127.0.0.1:${port}/`,
    stop: async () => {
      if (!exited) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]);
        if (!exited) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
}

/** mysql2 itself only understands mysql:// URLs. */
export const mysqlUrl = (url: string) => url.replace(/^mariadb:/, 'mysql:');
