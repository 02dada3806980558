import { Body, Controller, Delete, Get, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { ApiKeySummary, CreatedApiKey } from '@esign/contract';
import type { Response } from 'express';
import { sendPage } from '../../common/rest-query';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { CreateApiKeyDto } from './api-key.dto';
import { AuthService } from './auth.service';

/** The organisation's long-lived API keys (ra-data-simple-rest resource `api-keys`). */
@ApiTags('api-keys')
@ApiSecurity('apikey')
@Controller('api/api-keys')
export class ApiKeysController {
  constructor(private readonly auth: AuthService) {}

  @ApiOperation({ summary: "List the organisation's API keys (never the keys themselves)." })
  @Get()
  async list(@Auth() auth: AuthContext, @Res({ passthrough: true }) res: Response): Promise<ApiKeySummary[]> {
    const keys = await this.auth.listOrgKeys(auth.orgId);
    return sendPage(res, 'api-keys', { rows: keys, start: 0, total: keys.length });
  }

  @ApiOperation({ summary: 'Create a named API key; the key is shown once, in this answer.' })
  @Post()
  create(@Auth() auth: AuthContext, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKey> {
    return this.auth.createOrgKey(auth.orgId, dto.name.trim());
  }

  @ApiOperation({ summary: 'Revoke an API key.' })
  @Delete(':id')
  revoke(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ApiKeySummary> {
    return this.auth.revokeOrgKey(auth.orgId, id);
  }
}
