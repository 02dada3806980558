import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** A port nobody listens on right now. */
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

/** A built server a journey starts for itself, with a clock it moves and the environment it needs. */
export interface OwnServer {
  baseUrl: string;
  dataDir: string;
  /** Moves the server's clock forward (it reads the offset again within 200 ms). */
  advance(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `node api/dist/main.js` as the global setup does (fresh DATA_DIR, the demo organisation seeded), with `env`
 * on top (test fault points, a short watchdog interval) and shift-clock.cjs preloaded, so that the journey can move
 * time (issue 24: retention periods, the seal job's backoff) the way the API tests move their clock.
 */
export async function startOwnServer(env: Record<string, string> = {}): Promise<OwnServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-e2e-own-'));
  const clockFile = path.join(dataDir, '..', `${path.basename(dataDir)}.clock`);
  fs.writeFileSync(clockFile, '0');
  let offset = 0;
  const server: ChildProcess = spawn(
    process.execPath,
    ['--require', path.join(__dirname, 'shift-clock.cjs'), path.join(repoRoot, 'api', 'dist', 'main.js')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        PUBLIC_URL: baseUrl,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        E2E_CLOCK_FILE: clockFile,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const gone = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(clockFile, { force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`The API stopped before answering /health. Its output:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`GET ${baseUrl}/health did not answer 200 within 60 s. Output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    dataDir,
    advance: async (seconds) => {
      offset += seconds * 1000;
      fs.writeFileSync(clockFile, String(offset));
      await new Promise((resolve) => setTimeout(resolve, 400));
    },
    stop,
  };
}
