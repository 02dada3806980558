import { Controller, Get, Param } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { RequestEntity } from '../requests/request.entity';
import { toRefId } from '../requests/requests.service';
import { AuditService } from './audit.service';

/** One event of a request's audit trail, as `GET /api/requests/:refId/audit` answers it. */
export interface AuditTrailEvent {
  at: string;
  type: string;
  actor: string;
  ip: string | null;
  data: Record<string, unknown> | null;
  hash: string;
  prevHash?: string;
}

export interface AuditTrail {
  refId: number;
  events: AuditTrailEvent[];
  /** The chain recomputed now; lastHash is the hash the certificate of completion prints. */
  chain: { intact: boolean; lastHash: string | null };
}

/** A request's hash-chained audit trail, for `esign-cli verify` to compare with the certificate of completion. */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api')
export class AuditController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly audit: AuditService,
  ) {}

  @ApiOperation({ summary: "A request's audit events and whether their hash chain is intact." })
  @Get('requests/:refId/audit')
  async trail(@Auth() auth: AuthContext, @Param('refId') id: string): Promise<AuditTrail> {
    const refId = toRefId(id);
    const request =
      refId === null ? null : await this.db.getRepository(RequestEntity).findOneBy({ refId, orgId: auth.orgId });
    if (refId === null || !request || request.deletedAt) throw new AppError('NOT_FOUND', 'Request not found.');
    const events = await this.audit.list(this.db.manager, auth.orgId, refId);
    return {
      refId,
      events: events.map((e) => ({
        at: e.createdAt.toISOString(),
        type: e.type,
        actor: e.actor,
        ip: e.ip,
        data: e.data,
        hash: e.hash,
        ...(e.prevHash ? { prevHash: e.prevHash } : {}),
      })),
      chain: { intact: this.audit.verifyChain(events) === null, lastHash: events.at(-1)?.hash ?? null },
    };
  }
}
