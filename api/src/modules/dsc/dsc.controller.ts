import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth-context';
import { DscLoginService } from './dsc-login.service';

/** The desktop signer agent's login; its WebSocket is at /v1/dsc/agent/connect (DscAgents). */
@ApiTags('DSC signer agent')
@Controller('v1/dsc/agent')
export class DscAgentController {
  constructor(private readonly logins: DscLoginService) {}

  @Public()
  @ApiOperation({ summary: 'The agent logs in with the e-mail or phone of a signing request: an OTP is sent there.' })
  @Post('login')
  @HttpCode(200)
  login(@Body() body: { identifier?: unknown }) {
    return this.logins.login(body?.identifier);
  }

  @Public()
  @ApiOperation({ summary: "The OTP: answers the agent's bearer token for its WebSocket (12 hours)." })
  @Post('verify')
  @HttpCode(200)
  verify(@Body() body: { loginId?: unknown; otp?: unknown }) {
    return this.logins.verify(body?.loginId, body?.otp);
  }
}
