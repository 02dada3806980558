import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError } from '../../../common/app-error';
import { Public } from '../../../common/auth/auth-context';
import { Clock } from '../../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { DevelopmentTsa } from './development-tsa';

/** Queries per network address per minute: every one costs an RSA signature. */
export const TSA_QUERIES_PER_MINUTE = 600;

/**
 * The built-in development TSA over HTTP (RFC 3161 section 3.4), for verifiers and tools outside the API (`openssl ts
 * -query … | curl --data-binary @- -H 'Content-Type: application/timestamp-query' …/tsa`). Public like a real TSA: it
 * holds no tenant data, and signs only a hash and the time. The API itself calls the same TSA in process. Off (404)
 * when TSA_URLS names real TSAs.
 */
@ApiTags('timestamps')
@Controller('tsa')
export class TsaController {
  private window = { start: 0, counts: new Map<string, number>() };

  constructor(
    private readonly tsa: DevelopmentTsa,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @ApiOperation({
    summary:
      'The built-in development TSA: an RFC 3161 TimeStampReq (application/timestamp-query) in, a TimeStampResp (application/timestamp-reply) out. 404 when TSA_URLS is set.',
  })
  @ApiConsumes('application/timestamp-query')
  @ApiProduces('application/timestamp-reply')
  @Post()
  @HttpCode(200)
  async stamp(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.config.tsa.mode !== 'built-in')
      throw new AppError('NOT_FOUND', 'The built-in development TSA is off: TSA_URLS names the timestamp authorities.');
    if (!req.is('application/timestamp-query'))
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'POST /tsa takes an RFC 3161 TimeStampReq with Content-Type: application/timestamp-query.',
      );
    this.count(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    const query = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await this.tsa.answer(new Uint8Array(query));
    res.status(200);
    res.setHeader('Content-Type', 'application/timestamp-reply');
    res.setHeader('Cache-Control', 'no-store');
    res.end(Buffer.from(answer));
  }

  /** A fixed one-minute window per network address (this node's CPU is what it protects). */
  private count(address: string): void {
    const now = this.clock.now().getTime();
    if (now - this.window.start >= 60_000 || now < this.window.start)
      this.window = { start: now - (now % 60_000), counts: new Map() };
    const count = (this.window.counts.get(address) ?? 0) + 1;
    this.window.counts.set(address, count);
    if (count > TSA_QUERIES_PER_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil((this.window.start + 60_000 - now) / 1000));
      throw new AppError('TOO_MANY_ATTEMPTS', 'Too many timestamp queries from this address: wait a minute.', {
        'Retry-After': String(retryAfter),
      });
    }
  }
}
