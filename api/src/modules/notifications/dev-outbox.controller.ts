import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth-context';
import { DevOutboxQueryDto } from './dev-outbox.dto';
import { NotificationsService, type OutboxEntry } from './notifications.service';

/** The dev outbox: what the product sent or would have sent. Answers 404 under NODE_ENV=production. */
@ApiTags('dev')
@Controller('dev/outbox')
export class DevOutboxController {
  constructor(private readonly notifications: NotificationsService) {}

  @Public()
  @ApiOperation({ summary: 'Development only: the latest 50 e-mails and SMS (invitations, OTPs), newest first.' })
  @Get()
  @Header('Cache-Control', 'no-store')
  list(@Query() query: DevOutboxQueryDto): Promise<OutboxEntry[]> {
    return this.notifications.devOutbox(query.to);
  }
}
