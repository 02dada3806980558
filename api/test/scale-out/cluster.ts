import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';
import { CONFIG_VARIABLES } from '../../src/config/app-config';
import { freePort, mysqlUrl, startMariaDb as startMariaDbServer, type MariaDbServer } from '../support/mariadb-server';

/**
 * The scale-out cluster for api/test/scale-out/*.test.ts (run with `npx jest -c jest.scale-out.config.js` in api/):
 * real processes on 127.0.0.1, each on a free port, in one throwaway directory, with their output in log files.
 *
 *   MariaDB (Debian's mariadbd) · Redis (redis-server) · S3 (s3rver in a child process) · API nodes (api/dist/main.js)
 *   · the worker (api/dist/worker.js) · nginx in front of the nodes with docker/nginx/esign-proxy.conf, the very proxy
 *   settings of the compose deployment.
 *
 * Every process is stopped by stopAll() (call it in afterAll); if the test process dies first, however it dies, the
 * watchdog reaper.js kills what is left and deletes the cluster's directory.
 */

export { freePort, type MariaDbServer };

const API_DIR = resolve(__dirname, '..', '..');
const REPO_ROOT = resolve(API_DIR, '..');
export const API_MAIN = join(API_DIR, 'dist', 'main.js');
export const API_WORKER = join(API_DIR, 'dist', 'worker.js');
export const PROXY_CONF = join(REPO_ROOT, 'docker', 'nginx', 'esign-proxy.conf');
const NGINX = '/usr/sbin/nginx';
const REDIS_SERVER = '/usr/bin/redis-server';

/** A process of the cluster: its log file (stdout and stderr) and the last lines of it for failure messages. */
export interface Logged {
  logPath: string;
  logTail(lines?: number): string;
}

export interface ApiNode extends Logged {
  name: string;
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The current process's id (a restart changes it). */
  readonly pid: number;
  /** The environment it runs with (the harness's defaults and the caller's). */
  env: Record<string, string>;
  /** Sends the signal (SIGTERM: a graceful shutdown) and waits for the exit; SIGKILL after 20 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** SIGKILL, as a crash would, and waits for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same environment and DATA_DIR, and waits until it is ready. */
  restart(): Promise<void>;
}

export type Worker = Omit<ApiNode, 'port' | 'url'>;

export interface RedisServer extends Logged {
  /** redis://127.0.0.1:PORT/0 */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface S3Server extends Logged {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE for the nodes. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface NginxServer extends Logged {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The generated configuration file. */
  configPath: string;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// The throwaway directory and the process registry

let root: string | null = null;

/** The cluster's directory under the system's temporary folder (created at first use, deleted by stopAll()). */
export function clusterDir(): string {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'esign-cluster-'));
    // Run as root, nginx's workers are nobody: they must reach their temporary folders in here.
    chmodSync(root, 0o755);
    tellReaper(`d ${root}`);
  }
  return root;
}

function subdir(prefix: string): string {
  return mkdtempSync(join(clusterDir(), `${prefix}-`));
}

/** Running children: each is its own process group (nginx's workers, ffmpeg), killed as a group. */
const running = new Set<ChildProcess>();
/** Asynchronous stops (MariaDB, whose process the support module owns), run by stopAll(). */
const stoppers = new Set<() => Promise<void>>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * The watchdog (reaper.js, outside Jest's sandbox, which keeps the real process's exit and signal events from a test
 * module): told every process the harness starts, it SIGKILLs those still listed when this process dies, however it
 * dies. Its stdin is unreferenced, so it never keeps the test process alive.
 */
let reaper: ChildProcess | null = null;
function tellReaper(line: string): void {
  if (!reaper || exited(reaper)) {
    reaper = spawn(process.execPath, [join(__dirname, 'reaper.js')], {
      stdio: ['pipe', 'ignore', 'inherit'],
      detached: true,
    });
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
    reaper.stdin!.on('error', () => undefined);
  }
  reaper.stdin!.write(`${line}\n`);
}

function watch(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const pid = child.pid;
  running.add(child);
  tellReaper(`g ${pid}`);
  const forget = () => {
    running.delete(child);
    if (reaper && !exited(reaper)) reaper.stdin!.write(`r ${pid}\n`);
  };
  child.once('exit', forget);
  child.once('error', forget);
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when the child has exited; after `ms`, SIGKILLs its group and waits for that. */
async function waitExit(child: ChildProcess, ms = 20_000): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((r) => child.once('exit', () => r()));
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref());
  if ((await Promise.race([done, timer])) === 'timeout') {
    killGroup(child, 'SIGKILL');
    await done;
  }
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!exited(child)) {
    // A signal to the leader only: a Node process finishes its shutdown itself (SIGKILL goes to the whole group).
    if (signal === 'SIGKILL') killGroup(child, signal);
    else child.kill(signal);
    await waitExit(child);
  }
  // Whatever the leader left behind in its group (nginx workers, ffmpeg) goes too.
  killGroup(child, 'SIGKILL');
  running.delete(child);
}

function tail(file: string, lines = 60): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return `(no log at ${file})`;
  }
}

function logged(logPath: string): Logged {
  return { logPath, logTail: (lines?: number) => tail(logPath, lines) };
}

/** Starts a process in its own group with stdout and stderr appended to logPath. */
function launch(
  command: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; logPath: string; stdin?: 'ignore' | 'pipe'; stdout?: 'log' | 'pipe' },
): ChildProcess {
  const fd = openSync(opts.logPath, 'a');
  try {
    writeFileSync(fd, `\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin ?? 'ignore', opts.stdout === 'pipe' ? 'pipe' : fd, fd],
    });
    watch(child);
    return child;
  } finally {
    closeSync(fd);
  }
}

/** Polls `check` every 200 ms until it answers true; fails when the child exits or the time is up. */
async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  opts: { timeoutMs: number; child?: ChildProcess; logPath?: string },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = '';
  for (;;) {
    if (opts.child && exited(opts.child)) {
      throw new Error(
        `${what}: the process exited (${opts.child.exitCode ?? opts.child.signalCode}) before it was ready` +
          (opts.logPath ? `\n--- ${opts.logPath}\n${tail(opts.logPath)}` : ''),
      );
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = (err as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not ready after ${opts.timeoutMs / 1000} s${lastError ? ` (${lastError})` : ''}` +
          (opts.logPath ? `\n--- ${opts.logPath}\n${tail(opts.logPath)}` : ''),
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolveOpen(true);
    });
    socket.once('error', () => resolveOpen(false));
  });
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status === 200;
}

// ---------------------------------------------------------------------------------------------------------------
// Prerequisites

/** Throws naming the missing Debian packages (redis-server, nginx-light, mariadb-server). */
export function installed(): void {
  const missing: string[] = [];
  if (!existsSync(REDIS_SERVER)) missing.push(`redis-server (${REDIS_SERVER})`);
  if (!existsSync(NGINX)) missing.push(`nginx-light (${NGINX})`);
  if (!['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some(existsSync)) missing.push('mariadb-server (/usr/sbin/mariadbd)');
  if (missing.length) {
    throw new Error(
      `The scale-out tests need Debian packages that are not installed: ${missing.join(', ')}.\n` +
        `Install them with: apt-get install ${missing.map((m) => m.split(' ')[0]).join(' ')}`,
    );
  }
}

function requireBuilt(file: string, what: string): void {
  if (!existsSync(file)) {
    throw new Error(`${what} is not built (${file} is missing): run \`npm run build -w api\` first.`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// MariaDB

/** Linux lists a process's children in /proc; used to find the mariadbd the support module starts. */
function childPids(): Set<number> {
  const pids = new Set<number>();
  try {
    for (const task of readdirSync('/proc/self/task')) {
      const text = readFileSync(`/proc/self/task/${task}/children`, 'utf8');
      for (const pid of text.split(/\s+/).filter(Boolean)) pids.add(Number(pid));
    }
  } catch {
    // not Linux, or no CONFIG_PROC_CHILDREN: stopAll() still stops it
  }
  return pids;
}

function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals a process that is not a ChildProcess of ours and waits until it is gone (reaped). */
async function signalAndWait(pid: number, signal: NodeJS.Signals, ms: number): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

/** A throwaway MariaDB server (test/support/mariadb-server.ts), stopped by stopAll(). */
export async function startMariaDb(): Promise<MariaDbServer> {
  installed();
  const before = childPids();
  const server = await startMariaDbServer();
  // Only mariadbd: other servers may have been started meanwhile (Promise.all).
  const pids = [...childPids()].filter((p) => !before.has(p) && /^(mariadbd|mysqld)$/.test(processName(p)));
  for (const pid of pids) tellReaper(`p ${pid}`);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    stoppers.delete(stop);
    // Stop mariadbd ourselves and wait for it: the support module's stop() would then leave no 15 s timer behind.
    await Promise.all(pids.map((pid) => signalAndWait(pid, 'SIGTERM', 20_000)));
    await server.stop();
    for (const pid of pids) tellReaper(`r ${pid}`);
  };
  stoppers.add(stop);
  return { baseUrl: server.baseUrl, stop };
}

/** Creates a database (utf8mb4) on the server and answers its DATABASE_URL (mariadb://…/name). */
export async function createDatabase(
  server: MariaDbServer,
  name = `esign_${Date.now().toString(36)}`,
): Promise<string> {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`not a database name: ${name}`);
  const conn = await createConnection(mysqlUrl(server.baseUrl));
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await conn.end();
  }
  return `${server.baseUrl}${name}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Redis

/** redis-server on 127.0.0.1 without persistence, in its own directory. */
export async function startRedis(): Promise<RedisServer> {
  installed();
  const dir = subdir('redis');
  const port = await freePort();
  const logPath = join(dir, 'redis.log');
  const child = launch(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, logPath },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  await waitUntil(
    `redis-server on port ${port}`,
    async () => {
      // Nothing listening yet: no client (a refused ioredis connection leaves a timer behind).
      if (!(await portOpen(port))) return false;
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await client.connect();
        const pong = await client.ping();
        await client.quit();
        return pong === 'PONG';
      } finally {
        client.disconnect();
      }
    },
    { timeoutMs: 20_000, child, logPath },
  );
  return { url, port, ...logged(logPath), stop: () => terminate(child) };
}

// ---------------------------------------------------------------------------------------------------------------
// S3 (s3rver)

export const S3_BUCKET = 'esign-docs';

/** s3rver in a child process (s3rver-child.js), with the bucket esign-docs created through the S3 API. */
export async function startS3(bucket = S3_BUCKET): Promise<S3Server> {
  const dir = subdir('s3');
  const logPath = join(dir, 's3rver.log');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const child = launch(process.execPath, [join(__dirname, 's3rver-child.js'), join(dir, 'data')], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: API_DIR,
    logPath,
    stdin: 'pipe',
    stdout: 'pipe',
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`s3rver did not start in 20 s\n${tail(logPath)}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolvePort((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited (${code}) at start\n${tail(logPath)}`));
    });
  });
  child.stdout!.resume();
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = 'S3RVER';
  const secretAccessKey = 'S3RVER';
  // As the product's S3 store does: the SDK's notice about Node 22 is not this test's business.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const s3 = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    env: {
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    ...logged(logPath),
    stop: async () => {
      child.stdin?.end();
      await terminate(child);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// API nodes and the worker

/** The test process's environment without any of the product's variables (Jest sets NODE_ENV=test, for one). */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const product = new Set<string>(CONFIG_VARIABLES);
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || product.has(key) || key === 'INIT_CWD' || key.startsWith('JEST_')) continue;
    env[key] = value;
  }
  return env;
}

function productEnv(dataDir: string, env: Record<string, string>): Record<string, string> {
  return {
    ...baseEnv(),
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    ...env,
  };
}

interface Supervised {
  child: ChildProcess;
  logOffset: number;
}

function supervise(
  name: string,
  script: string,
  env: Record<string, string>,
  logPath: string,
  ready: (s: Supervised) => Promise<void>,
) {
  let current: Supervised | null = null;
  const start = async () => {
    const logOffset = existsSync(logPath) ? statSync(logPath).size : 0;
    const child = launch(process.execPath, [script], { env, logPath });
    current = { child, logOffset };
    try {
      await ready(current);
    } catch (err) {
      await terminate(child, 'SIGKILL');
      throw err;
    }
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (current) await terminate(current.child, signal);
  };
  return {
    start,
    stop,
    kill: () => stop('SIGKILL'),
    restart: async () => {
      await stop();
      await start();
    },
    get pid() {
      return current?.child.pid ?? -1;
    },
    name,
  };
}

/**
 * `node api/dist/main.js` on 127.0.0.1 on a free port with its own DATA_DIR, NODE_ENV=development (the demo
 * organisation demo / demo1234 is seeded on an empty database) and `env` on top; ready when GET /health answers 200.
 */
export async function startApiNode(
  name: string,
  env: Record<string, string> = {},
  opts: { port?: number } = {},
): Promise<ApiNode> {
  requireBuilt(API_MAIN, 'The API');
  const dir = subdir(`api-${name}`);
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const logPath = join(dir, `${name}.log`);
  const fullEnv = { ...productEnv(join(dir, 'data'), env), HOST: '127.0.0.1', PORT: String(port) };
  const proc = supervise(name, API_MAIN, fullEnv, logPath, ({ child }) =>
    waitUntil(`API node ${name} (${url})`, () => httpOk(`${url}/health`), { timeoutMs: 60_000, child, logPath }),
  );
  await proc.start();
  return {
    name,
    port,
    url,
    get pid() {
      return proc.pid;
    },
    env: fullEnv,
    ...logged(logPath),
    stop: proc.stop,
    kill: proc.kill,
    restart: proc.restart,
  };
}

/** `node api/dist/worker.js` with its own DATA_DIR and `env`; ready when its log prints `worker ready`. */
export async function startWorker(env: Record<string, string> = {}, name = 'worker'): Promise<Worker> {
  requireBuilt(API_WORKER, 'The worker');
  const dir = subdir(name);
  const logPath = join(dir, `${name}.log`);
  const fullEnv = productEnv(join(dir, 'data'), env);
  const proc = supervise(name, API_WORKER, fullEnv, logPath, ({ child, logOffset }) =>
    waitUntil(
      `${name} (api/dist/worker.js)`,
      () => {
        const text = readFileSync(logPath);
        return text.subarray(logOffset).toString('utf8').includes('worker ready');
      },
      { timeoutMs: 60_000, child, logPath },
    ),
  );
  await proc.start();
  return {
    name,
    get pid() {
      return proc.pid;
    },
    env: fullEnv,
    ...logged(logPath),
    stop: proc.stop,
    kill: proc.kill,
    restart: proc.restart,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// nginx

/** The nginx configuration of the harness: the compose deployment's proxy settings in front of the given ports. */
export function nginxConfig(dir: string, listenPort: number, upstreamPorts: number[], proxyConf = PROXY_CONF): string {
  if (!upstreamPorts.length) throw new Error('nginx needs at least one upstream port');
  const servers = upstreamPorts.map((p) => `        server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  return `# Written by api/test/scale-out/cluster.ts
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;

events {
    worker_connections 512;
}

http {
    default_type application/octet-stream;
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;

    upstream esign_api {
${servers}
    }

    map $http_upgrade $connection_upgrade {
        default upgrade;
        '' close;
    }

    server {
        listen 127.0.0.1:${listenPort};
        server_name _;

        location / {
            proxy_pass http://esign_api;
            include ${proxyConf};
        }
    }
}
`;
}

/**
 * nginx (Debian's nginx-light) on 127.0.0.1 in front of the API nodes' ports, on `opts.port` or a free port. To give
 * the nodes PUBLIC_URL = nginx's address before nginx starts, reserve the port first:
 *   const port = await freePort(); startApiNode('api-1', { PUBLIC_URL: `http://127.0.0.1:${port}` }); startNginx([...], { port })
 */
export async function startNginx(upstreamPorts: number[], opts: { port?: number } = {}): Promise<NginxServer> {
  installed();
  const dir = subdir('nginx');
  chmodSync(dir, 0o755);
  const port = opts.port ?? (await freePort());
  const configPath = join(dir, 'nginx.conf');
  writeFileSync(configPath, nginxConfig(dir, port, upstreamPorts));
  const logPath = join(dir, 'nginx.log');
  const errorLog = join(dir, 'error.log');
  const child = launch(NGINX, ['-p', dir, '-e', errorLog, '-c', configPath], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    logPath,
  });
  const url = `http://127.0.0.1:${port}`;
  const both = () => `${tail(logPath, 20)}\n--- ${errorLog}\n${tail(errorLog, 30)}`;
  await waitUntil(
    `nginx on ${url}`,
    async () => {
      // Any HTTP answer (a 502 while no node is up) shows nginx is listening.
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return true;
    },
    { timeoutMs: 20_000, child },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${both()}`);
  });
  return {
    url,
    port,
    configPath,
    logPath: errorLog,
    logTail: (lines?: number) => tail(errorLog, lines),
    // SIGQUIT: nginx's graceful shutdown (the workers finish their requests).
    stop: () => terminate(child, 'SIGQUIT'),
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** Stops every process the harness started (MariaDB included) and deletes the cluster's directory. */
export async function stopAll(): Promise<void> {
  const children = [...running];
  await Promise.all(children.map((child) => terminate(child)));
  await Promise.all([...stoppers].map((stop) => stop().catch(() => undefined)));
  if (root) {
    rmSync(root, { recursive: true, force: true });
    root = null;
  }
  if (reaper && !exited(reaper)) {
    reaper.stdin!.end('exit\n');
    reaper = null;
  }
}
