import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './mariadb-server';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  /** redis://127.0.0.1:PORT/0 */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A real, throwaway Redis (Debian's redis-server) on a free loopback port, nothing saved to disk. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER))
    throw new Error(
      'Redis is not installed: run `apt-get install redis-server` (npm test does this when run as root).',
    );
  const dir = mkdtempSync(join(tmpdir(), 'esign-redis-'));
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}/0`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') break;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`redis-server did not start on port ${port}:\n${output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
