import { Body, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { ApiKeySummary, CreatedApiKey } from '@esign/contract';
import type { Response } from 'express';
import { ListQueryDto, sendPage } from '../../common/rest-query';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { CreateApiKeyDto } from './api-key.dto';
import { AuthService } from './auth.service';

/** The organisation's long-lived API keys (ra-data-simple-rest resource `api-keys`). */
@ApiTags('api-keys')
@ApiSecurity('apikey')
@Controller('api/api-keys')
export class ApiKeysController {
  constructor(private readonly auth: AuthService) {}

  @ApiOperation({
    summary:
      "List the organisation's API keys (never the keys themselves), paginated, sorted (name, prefix, created_at, last_used_at, revoked_at, id; newest first) and filtered (q: the name or prefix contains it; revoked: true or false).",
  })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @Query() query: ListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ApiKeySummary[]> {
    return sendPage(res, 'api-keys', await this.auth.listOrgKeys(auth.orgId, query));
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
