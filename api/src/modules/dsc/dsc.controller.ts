import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { dscLoginSchema, dscVerifySchema, type InputOf } from '@esign/contract';
import { Public } from '../../common/auth/auth-context';
import { InputBody } from '../../common/validation/input';
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
  login(@InputBody(dscLoginSchema) body: InputOf<typeof dscLoginSchema>) {
    return this.logins.login(body.identifier);
  }

  @Public()
  @ApiOperation({ summary: "The OTP: answers the agent's bearer token for its WebSocket (12 hours)." })
  @Post('verify')
  @HttpCode(200)
  verify(@InputBody(dscVerifySchema) body: InputOf<typeof dscVerifySchema>) {
    return this.logins.verify(body.loginId, body.otp);
  }
}
