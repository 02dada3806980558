import { Controller, Get, Header, Req } from '@nestjs/common';
import { devOutboxQuerySchema, Messages, type InputOf } from '@esign/contract';
import type { Request } from 'express';
import { AppError } from '../../common/app-error';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth-context';
import { InputQuery } from '../../common/validation/input';
import { NotificationsService, type OutboxEntry } from './notifications.service';

/** Loopback addresses, as Node reports them (IPv4, IPv6 and IPv4-mapped IPv6). */
const isLoopback = (ip: string | undefined) => !!ip && (/^127\./.test(ip) || ip === '::1' || /^::ffff:127\./.test(ip));

/**
 * The dev outbox: what the product sent or would have sent. Answers 404 under NODE_ENV=production, and to anyone not
 * on this machine (it holds every organisation's sign links and OTPs).
 */
@ApiTags('dev')
@Controller('dev/outbox')
export class DevOutboxController {
  constructor(private readonly notifications: NotificationsService) {}

  @Public()
  @ApiOperation({ summary: 'Development only: the latest 50 e-mails and SMS (invitations, OTPs), newest first.' })
  @Get()
  @Header('Cache-Control', 'no-store')
  list(
    @InputQuery(devOutboxQuerySchema) query: InputOf<typeof devOutboxQuerySchema>,
    @Req() req: Request,
  ): Promise<OutboxEntry[]> {
    if (!isLoopback(req.ip)) throw new AppError('NOT_FOUND', Messages.notFound);
    return this.notifications.devOutbox(query.to);
  }
}
