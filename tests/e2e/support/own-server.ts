import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type StartedServer } from './server';

/** A built server a journey starts for itself, with a clock it moves and the environment it needs. */
export interface OwnServer extends StartedServer {
  /** Moves the server's clock forward (it reads the offset again within 200 ms; this waits that long). */
  advance(seconds: number): Promise<void>;
}

/**
 * Starts the built server as the global setup does (support/server.ts), with `env` on top (test fault points, a short
 * watchdog interval) and shift-clock.cjs preloaded, so that the journey can move time (issue 24: retention periods,
 * the seal job's backoff) the way the API tests move their clock.
 */
export async function startOwnServer(env: Record<string, string> = {}): Promise<OwnServer> {
  const clockDir = fs.mkdtempSync(path.join(os.tmpdir(), 'esign-e2e-clock-'));
  const clockFile = path.join(clockDir, 'offset-ms');
  fs.writeFileSync(clockFile, '0');
  let offset = 0;
  const server = await startServer(
    { E2E_CLOCK_FILE: clockFile, ...env },
    ['--require', path.join(__dirname, 'shift-clock.cjs')],
    'esign-e2e-own-',
  ).catch((error: unknown) => {
    fs.rmSync(clockDir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...server,
    advance: async (seconds) => {
      offset += seconds * 1000;
      fs.writeFileSync(clockFile, String(offset));
      await new Promise((resolve) => setTimeout(resolve, 400));
    },
    stop: async () => {
      await server.stop();
      fs.rmSync(clockDir, { recursive: true, force: true });
    },
  };
}
