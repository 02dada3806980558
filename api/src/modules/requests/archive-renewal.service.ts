import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RequestMessages, refIdOf } from '@esign/contract';
import { DataSource, LessThanOrEqual } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { RecurringJobs } from '../jobs/recurring-jobs';
import { renewalTime } from '../signing/evidence/renewal';
import { SigningEngine } from '../signing/pdf/engine';
import { DocumentStorage } from '../storage/document-storage';
import { RequestEntity } from './request.entity';

export const ARCHIVE_RENEW_JOB = 'archive.renew';
const DAY_MS = 86_400_000;
/** A batch per run; the job comes back at once while more are due. */
const RENEW_BATCH = 20;

export interface RenewOutcome {
  refId: number;
  renewed: boolean;
  /** Why not, when not renewed. */
  reason?: string;
  archivedAt?: string;
  renewAt?: string | null;
  revocationGaps?: number;
}

/**
 * Keeps completed documents verifiable for decades (issue 19, B-LTA): before the last archive timestamp's TSA
 * certificate expires, a new DSS (fresh revocation data, the last timestamp's chain) and a new document timestamp over
 * the whole file are added, each an incremental update, so everything before stays valid and is now covered by a
 * timestamp with years left. The `archive.renew` job does it daily for what is due; `manage renew-archive` on demand.
 */
@Injectable()
export class ArchiveService implements OnModuleInit {
  private readonly log = new Logger('Archive');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly storage: DocumentStorage,
    private readonly engine: SigningEngine,
    private readonly audit: AuditService,
    private readonly recurring: RecurringJobs,
  ) {}

  onModuleInit(): void {
    this.recurring.register(ARCHIVE_RENEW_JOB, async () => {
      const done = await this.renewDue(RENEW_BATCH);
      return new Date(this.clock.now().getTime() + (done.length >= RENEW_BATCH ? 60_000 : DAY_MS));
    });
  }

  /** Renews the completed documents whose renewal is due, at most `limit`. */
  async renewDue(limit: number): Promise<RenewOutcome[]> {
    const due = await this.db.manager.find(RequestEntity, {
      select: { refId: true },
      where: { status: 'completed', archiveRenewAt: LessThanOrEqual(this.clock.now()) },
      order: { archiveRenewAt: 'ASC' },
      take: limit,
    });
    const outcomes: RenewOutcome[] = [];
    for (const { refId } of due) {
      try {
        outcomes.push(await this.renew(refId, false));
      } catch (err) {
        this.log.error(`archive renewal of request ${refId} failed: ${(err as Error).message}`);
        throw err;
      }
    }
    return outcomes;
  }

  /** `manage renew-archive --ref N [--force]`: renews one completed document now (when due, or always with force). */
  async renewRef(refIdText: string, force: boolean): Promise<RenewOutcome> {
    const refId = refIdOf(refIdText);
    if (refId === null) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return this.renew(refId, force);
  }

  private async renew(refId: number, force: boolean): Promise<RenewOutcome> {
    const req = await this.db.manager.findOneBy(RequestEntity, { refId });
    if (!req) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    if (req.status !== 'completed' || !req.signedFileKey)
      return { refId, renewed: false, reason: 'the request is not completed' };
    if (req.filesDeletedAt) return { refId, renewed: false, reason: 'its documents were deleted by retention' };
    if (req.evidenceLevel !== 'B-LTA') return { refId, renewed: false, reason: `its level is ${req.evidenceLevel}` };
    const now = this.clock.now();
    if (!force && req.archiveRenewAt && req.archiveRenewAt.getTime() > now.getTime())
      return { refId, renewed: false, reason: `not due before ${req.archiveRenewAt.toISOString()}` };
    const base = req.signedFileKey;
    const archived = await this.engine.archive(await this.storage.get(base), 'B-LTA');
    const stored = await this.storage.put(Buffer.from(archived.document));
    const renewAt = renewalTime(archived.timestamp);
    const committed = await this.db.transaction(async (manager) => {
      const taken = await manager.update(
        RequestEntity,
        { refId, signedFileKey: base, status: 'completed' },
        {
          signedFileKey: stored.key,
          archivedAt: archived.timestamp?.time ?? now,
          archiveRenewAt: renewAt,
          updatedAt: now,
        },
      );
      if (!taken.affected) return false;
      await this.audit.record(manager, {
        orgId: req.orgId,
        refId,
        type: 'request.archive_renewed',
        actor: 'system',
        data: {
          documentSha256: stored.key,
          previousSha256: base,
          archiveTimestampedAt: archived.timestamp?.time.toISOString() ?? null,
          tsa: archived.timestamp?.tsa ?? null,
          renewAt: renewAt?.toISOString() ?? null,
          revocationGaps: archived.gaps.length ? archived.gaps : null,
        },
      });
      return true;
    });
    if (!committed) return { refId, renewed: false, reason: 'the document changed during the renewal' };
    return {
      refId,
      renewed: true,
      archivedAt: (archived.timestamp?.time ?? now).toISOString(),
      renewAt: renewAt?.toISOString() ?? null,
      revocationGaps: archived.gaps.length,
    };
  }
}
