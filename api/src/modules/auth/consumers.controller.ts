import { Controller, Delete, Get, HttpCode, Param, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { ConsumerResponse, KeyAuthResponse, WhoAmIResponse } from '@esign/contract';
import type { Request } from 'express';
import { Auth, Public, type AuthContext } from '../../common/auth/auth-context';
import { AuthService } from './auth.service';

@ApiTags('consumers')
@Controller('consumers')
export class ConsumersController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @ApiBasicAuth()
  @ApiOperation({ summary: 'Sign in: a fresh session key for the Basic credentials (expires after 3600 s idle).' })
  @Get(':username/key-auth')
  issueKey(@Param('username') username: string, @Req() req: Request): Promise<KeyAuthResponse> {
    return this.auth.issueSessionKey(username, req.headers.authorization, req.ip ?? '');
  }

  @Public()
  @ApiBasicAuth()
  @ApiOperation({ summary: 'The consumer record: tags = [orgId, tag, mode].' })
  @Get(':username')
  consumer(@Param('username') username: string, @Req() req: Request): Promise<ConsumerResponse> {
    return this.auth.consumer(username, req.headers.authorization, req.ip ?? '');
  }

  @ApiSecurity('apikey')
  @ApiOperation({ summary: 'Sign out: revokes the session key sent in the apikey header.' })
  @Delete(':username/key-auth')
  @HttpCode(204)
  signOut(@Auth() auth: AuthContext, @Param('username') username: string): Promise<void> {
    return this.auth.signOut(auth, username);
  }
}

/** Who the `apikey` is: its kind, organisation and user (session key) or name (organisation key). */
@ApiTags('consumers')
@ApiSecurity('apikey')
@Controller('api')
export class WhoAmIController {
  constructor(private readonly auth: AuthService) {}

  @ApiOperation({ summary: 'Who the apikey is: { kind: session | org, orgId, username, keyName }.' })
  @Get('whoami')
  whoami(@Auth() auth: AuthContext): Promise<WhoAmIResponse> {
    return this.auth.whoami(auth);
  }
}
