import { Controller, Get, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { recipientLoginSchema, recipientVerifySchema, type InputOf } from '@esign/contract';
import type { Request } from 'express';
import { Public } from '../../common/auth/auth-context';
import { InputBody } from '../../common/validation/input';
import { RecipientListService } from './recipient-list.service';

const ipOf = (req: Request): string | null => req.ip ?? req.socket.remoteAddress ?? null;

/**
 * /list, the recipient's own list: public (no organisation key, no link token). The OTP sent to the address is the
 * proof; the list token it gives reads only that address's own rows. Throttled per address and per network address.
 */
@ApiTags('v1 recipient list')
@Controller('v1/recipient')
export class RecipientListController {
  constructor(private readonly list: RecipientListService) {}

  @Public()
  @ApiOperation({
    summary:
      '{ identifier } (an e-mail or an Indian phone number): an OTP goes there if requests were sent to it; the same answer either way.',
  })
  @Post('login')
  @HttpCode(200)
  login(@InputBody(recipientLoginSchema) body: InputOf<typeof recipientLoginSchema>, @Req() req: Request) {
    return this.list.login(body.identifier, ipOf(req));
  }

  @Public()
  @ApiOperation({ summary: '{ id, otp }: a list token for GET /v1/recipient/requests (30 minutes).' })
  @Post('verify')
  @HttpCode(200)
  verify(@InputBody(recipientVerifySchema) body: InputOf<typeof recipientVerifySchema>) {
    return this.list.verify(body.id, body.otp);
  }

  @Public()
  @ApiOperation({ summary: 'The requests sent to the verified address, newest first (Authorization: Bearer <token>).' })
  @Get('requests')
  requests(@Headers('authorization') authorization: string | undefined) {
    return this.list.requests(authorization);
  }
}
