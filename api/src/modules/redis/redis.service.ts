import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** ioredis, loaded at first connection: only scale-out (REDIS_URL) connects, and the embedded default is spared it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ioredis = (): typeof IORedis => require('ioredis') as typeof IORedis;

/** Every key and channel this product writes in Redis starts with this (BullMQ's own keys start with `bull:`). */
export const REDIS_PREFIX = 'esign:';

/**
 * The Redis connection of scale-out (REDIS_URL): shared state between API nodes and the worker. Absent (`enabled`
 * false) on the embedded default, where the database holds everything.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly log = new Logger('Redis');
  private readonly connections: Redis[] = [];
  private main: Redis | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.redis !== null;
  }

  /** The shared command connection (created at first use). Throws when REDIS_URL is not set. */
  get client(): Redis {
    if (!this.main) this.main = this.connect('main');
    return this.main;
  }

  /**
   * A connection of its own: a subscriber (which can do nothing else) or a BullMQ worker (which blocks on it).
   * `blocking` connections retry commands for ever (BullMQ requires it); others fail a command after 2 retries.
   */
  connect(name: string, blocking = false): Redis {
    if (!this.config.redis) throw new Error('REDIS_URL is not set');
    const options: RedisOptions = {
      connectionName: `esign-${name}`,
      maxRetriesPerRequest: blocking ? null : 2,
      enableReadyCheck: true,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    };
    const connection = new (ioredis().Redis)(this.config.redis.url, options);
    let warned = false;
    connection.on('error', (err: Error) => {
      if (!warned) this.log.error(`Redis connection '${name}': ${err.message}`);
      warned = true;
    });
    connection.on('ready', () => (warned = false));
    this.connections.push(connection);
    return connection;
  }

  /** For readiness: PING answered within `timeoutMs`. */
  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer PING in time')), timeoutMs);
    });
    try {
      const answer = await Promise.race([this.client.ping(), timeout]);
      if (answer !== 'PONG') throw new Error(`Redis answered PING with ${String(answer)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // quit() waits for the server's answer; a connection that is not up (Redis gone) is dropped at once.
    await Promise.all(
      this.connections.map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())),
    );
    this.connections.length = 0;
    this.main = null;
  }
}
