import { Controller, Delete, Get, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  createApiKeySchema,
  apiKeyIdParamSchema,
  apiKeyListQuerySchema,
  type ApiKeySummary,
  type CreatedApiKey,
  type InputOf,
  type ApiKeyListQuery,
} from '@esign/contract';
import type { Response } from 'express';
import { sendPage } from '../../common/rest-query';
import { InputBody, InputParam, InputQuery } from '../../common/validation/input';
import { AdminOnly, Auth, type AuthContext } from '../../common/auth/auth-context';
import { AuthService } from './auth.service';

/** The organisation's long-lived API keys (ra-data-simple-rest resource `api-keys`); administrators only. */
@ApiTags('api-keys')
@ApiSecurity('apikey')
@AdminOnly()
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
    @InputQuery(apiKeyListQuerySchema) query: ApiKeyListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ApiKeySummary[]> {
    return sendPage(res, 'api-keys', await this.auth.listOrgKeys(auth.orgId, query));
  }

  @ApiOperation({ summary: 'Create a named API key; the key is shown once, in this answer.' })
  @Post()
  create(
    @Auth() auth: AuthContext,
    @InputBody(createApiKeySchema) body: InputOf<typeof createApiKeySchema>,
  ): Promise<CreatedApiKey> {
    return this.auth.createOrgKey(auth.orgId, body.name);
  }

  @ApiOperation({ summary: 'One API key: its name, prefix, creation, last use and revocation (never the key).' })
  @Get(':id')
  get(@Auth() auth: AuthContext, @InputParam('id', apiKeyIdParamSchema) id: string): Promise<ApiKeySummary> {
    return this.auth.getOrgKey(auth.orgId, id);
  }

  @ApiOperation({ summary: 'Revoke an API key.' })
  @Delete(':id')
  revoke(@Auth() auth: AuthContext, @InputParam('id', apiKeyIdParamSchema) id: string): Promise<ApiKeySummary> {
    return this.auth.revokeOrgKey(auth.orgId, id);
  }
}
