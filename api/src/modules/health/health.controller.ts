import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { HealthResponse, ReadinessResponse } from '@esign/contract';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { RedisService } from '../redis/redis.service';
import { DocumentStorage } from '../storage/document-storage';
import { version as VERSION } from '../../../package.json';

/** Each readiness check must answer within this, or it fails. */
const CHECK_TIMEOUT_MS = 2000;

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    private readonly redis: RedisService,
    private readonly storage: DocumentStorage,
  ) {}

  @Public()
  @ApiOperation({ summary: 'Liveness and database reachability.' })
  @Get()
  async health(): Promise<HealthResponse> {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw new AppError('UNAVAILABLE', 'The database is not reachable.');
    }
    return { status: 'ok', database: this.db.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql', version: VERSION };
  }

  @Public()
  @ApiOperation({
    summary: 'Readiness: the database, Redis (when configured) and the document store, each within 2 s.',
    description: "200 when all answer; 503 with the same body, status 'unavailable' and the failing check's reason.",
  })
  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    const [database, redis, storage] = await Promise.all([
      check('database', () => this.db.query('SELECT 1')),
      this.redis.enabled ? check('redis', () => this.redis.ping(CHECK_TIMEOUT_MS)) : Promise.resolve('off'),
      check('storage', () => this.storage.check()),
    ]);
    const checks = { database, redis, storage };
    const ready = Object.values(checks).every((c) => c === 'ok' || c === 'off');
    const body: ReadinessResponse = { status: ready ? 'ready' : 'unavailable', checks };
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json(body);
  }
}

/** 'ok', or the reason the check failed or timed out: one line, at most 200 characters, credentials in URLs masked. */
async function check(name: string, probe: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${name} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const reason = message
      .split('\n')[0]
      .replace(/([a-z][a-z0-9+.-]*:\/\/)[^@\s/]*@/gi, '$1***@')
      .slice(0, 200);
    return reason || `${name} check failed`;
  } finally {
    clearTimeout(timer);
  }
}
