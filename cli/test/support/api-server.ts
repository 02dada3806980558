import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..', '..', '..');
export const API_ENTRY = join(REPO, 'api', 'dist', 'main.js');
export const CLI_ENTRY = join(REPO, 'cli', 'dist', 'index.js');
export const DEMO = { orgId: 'demo', username: 'demo', password: 'demo1234' } as const;

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

export interface StartedApi {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Stops the server and removes its data. */
  stop: () => Promise<void>;
}

/**
 * The built API (api/dist, from `npm run build`) on a free loopback port with its own DATA_DIR and SQLite database,
 * the demo organisation seeded (NODE_ENV=development), the job runner on. No mocks.
 */
export async function startApi(env: Record<string, string> = {}): Promise<StartedApi> {
  if (!existsSync(API_ENTRY)) throw new Error(`${API_ENTRY} is missing: run npm run build first`);
  const dataDir = mkdtempSync(join(tmpdir(), 'esign-cli-api-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [API_ENTRY], {
    cwd: REPO,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      JOBS_POLL_MS: '200',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, dataDir, child, stop };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`the API did not answer /health within 60 s: ${stderr}`);
}

/** A session key of the demo user (as the console signs in). */
export async function demoSessionKey(url: string): Promise<string> {
  const auth = Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64');
  const res = await fetch(`${url}/consumers/${DEMO.username}/key-auth`, {
    headers: { authorization: `Basic ${auth}` },
  });
  if (!res.ok) throw new Error(`demo sign-in answered ${res.status}`);
  return ((await res.json()) as { data: Array<{ key: string }> }).data[0].key;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (cli/dist/index.js) as a process: its own HOME (so the saved profile is the test's), CI=true
 * (nothing prompts) unless overridden, stdin from `input` or closed.
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; home: string },
): CliRun {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run npm run build first`);
  const done = spawnSync(process.execPath, [CLI_ENTRY, ...args], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: options.home,
      CI: 'true',
      ...options.env,
    },
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: done.status, stdout: done.stdout, stderr: done.stderr };
}

/** The same, asynchronously (for a run to be killed half-way). */
export function spawnCli(args: string[], options: { env?: Record<string, string>; home: string }): ChildProcess {
  return spawn(process.execPath, [CLI_ENTRY, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, CI: 'true', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
