import { Controller, Get } from '@nestjs/common';
import { refIdParamSchema } from '@esign/contract';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { InputParam } from '../../common/validation/input';
import { AuditService, type AuditTrail } from '../audit/audit.service';
import { RequestEntity } from './request.entity';

/**
 * A request's hash-chained audit trail, for `esign-cli verify` to compare with the certificate of completion. The route
 * is the request's (only a request of the key's organisation, not deleted, has one), so it lives here and audit knows
 * nothing of requests.
 */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api')
export class AuditTrailController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly audit: AuditService,
  ) {}

  @ApiOperation({ summary: "A request's audit events and whether their hash chain is intact." })
  @Get('requests/:refId/audit')
  async trail(@Auth() auth: AuthContext, @InputParam('refId', refIdParamSchema) refId: number): Promise<AuditTrail> {
    const request = await this.db.getRepository(RequestEntity).findOneBy({ refId, orgId: auth.orgId });
    if (!request || request.deletedAt) throw new AppError('NOT_FOUND', 'Request not found.');
    return this.audit.trail(this.db.manager, auth.orgId, refId);
  }
}
