import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const serverEntry = process.env.E2E_SERVER_ENTRY || path.join(repoRoot, 'api', 'dist', 'main.js');
const startTimeoutMs = 60_000;

/** A port nobody listens on right now: bind port 0 on the loopback, read what the system chose, release it. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface StartedServer {
  baseUrl: string;
  dataDir: string;
  /** Stops the server (SIGTERM, SIGKILL after 10 s) and removes its DATA_DIR. */
  stop(): Promise<void>;
}

/**
 * Starts `node [nodeArgs] api/dist/main.js` on a free port with an empty DATA_DIR (so the demo organisation is
 * seeded) and `env` on top, and waits for GET /health. The global setup's server, and a journey's own
 * (own-server.ts).
 */
export async function startServer(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  dataDirPrefix = 'esign-e2e-',
): Promise<StartedServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix));
  const server = spawn(process.execPath, [...nodeArgs, serverEntry], {
    cwd: repoRoot,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      PUBLIC_URL: baseUrl,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  server.stdout.on('data', keep);
  server.stderr.on('data', keep);
  let exited: string | null = null;
  server.once('exit', (code, signal) => {
    exited = `exit code ${code ?? '-'}, signal ${signal ?? '-'}`;
  });

  const removeDataDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const gone = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    removeDataDir();
  };

  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (exited) {
      removeDataDir();
      throw new Error(`The API stopped before answering /health (${exited}). Its output:\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`GET ${baseUrl}/health did not answer 200 within ${startTimeoutMs / 1000} s. Output:\n${output}`);
    }
    await sleep(250);
  }
  return { baseUrl, dataDir, stop };
}
