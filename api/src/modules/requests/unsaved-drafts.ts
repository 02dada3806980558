import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RequestMessages, type UnsavedDraftDiscard, refIdOf } from '@esign/contract';
import { DataSource, IsNull, LessThan, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { RecurringJobs } from '../jobs/recurring-jobs';
import { RequestEntity } from './request.entity';
import { lockFor } from './request-repository';

export const DRAFTS_CLEANUP_JOB = 'drafts.cleanup';
/** One cleanup job at a time, whichever node scheduled it. */
/** A draft never saved and untouched this long is abandoned (its upload went no further than the placement). */
export const UNSAVED_DRAFT_MAX_AGE_MS = 24 * 3_600_000;
/** How often the cleanup runs; sooner while a run leaves more behind than it may remove at once. */
const CLEANUP_EVERY_MS = 3_600_000;
const CLEANUP_AGAIN_MS = 60_000;
const CLEANUP_BATCH = 200;

/** DELETE /api/drafts/{id}/unsaved: whether the draft is kept (it was saved or sent), else it is gone. */
export type DiscardResult = UnsavedDraftDiscard;

/**
 * Drafts that were uploaded (PROCEED) but never saved on the placement screen. They are not listed (listed_at is
 * null) and leave the database's live rows in one of two ways: the console discards one at once when the user goes
 * Back from the placement's first step, and the `drafts.cleanup` job removes those older than 24 h (the user left the
 * page, or a CLI run stopped between upload and save; a resumed run within the day still finds its draft by its
 * client reference). A removed draft is deleted as the console deletes one (deleted_at, its audit trail kept) and its
 * client reference is released, so a later upload with the same reference starts afresh. A draft that was saved, or
 * a request that was sent, is never touched.
 */
@Injectable()
export class UnsavedDrafts implements OnModuleInit {
  private readonly log = new Logger('UnsavedDrafts');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly recurring: RecurringJobs,
  ) {}

  /** Registered wherever jobs may run (API nodes and the scale-out worker); kept queued by the API nodes. */
  onModuleInit(): void {
    this.recurring.register(DRAFTS_CLEANUP_JOB, async () => {
      const removed = await this.removeAbandoned();
      return new Date(this.clock.now().getTime() + (removed >= CLEANUP_BATCH ? CLEANUP_AGAIN_MS : CLEANUP_EVERY_MS));
    });
  }

  /** Queues the recurring cleanup (due now) unless it is queued or running already. */
  schedule(): Promise<void> {
    return this.recurring.schedule(DRAFTS_CLEANUP_JOB);
  }

  /** Back from the placement's first step: removes the draft PROCEED made, unless it has been saved (or sent). */
  async discard(auth: AuthContext, refId: unknown): Promise<DiscardResult> {
    const id = refIdOf(refId);
    if (id === null) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    return this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, {
        where: { orgId: auth.orgId, refId: id },
        ...lockFor(manager),
      });
      if (!req) throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
      if (req.deletedAt) return { id, kept: false };
      if (!isUnsaved(req)) return { id, kept: true };
      await this.remove(manager, req, actorOf(auth), 'back');
      return { id, kept: false };
    });
  }

  /** The cleanup job: removes the unsaved drafts untouched for 24 h, at most a batch at a time; answers how many. */
  async removeAbandoned(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - UNSAVED_DRAFT_MAX_AGE_MS);
    const candidates = await this.db.manager.find(RequestEntity, {
      select: { refId: true },
      where: { isDraft: true, listedAt: IsNull(), deletedAt: IsNull(), updatedAt: LessThan(cutoff) },
      order: { updatedAt: 'ASC' },
      take: CLEANUP_BATCH,
    });
    let removed = 0;
    for (const { refId } of candidates) {
      // Each in its own transaction, checked again under the lock: a save may have come in since the look-up.
      const done = await this.db.transaction(async (manager) => {
        const req = await manager.findOne(RequestEntity, { where: { refId }, ...lockFor(manager) });
        if (!req || req.deletedAt || !isUnsaved(req) || req.updatedAt.getTime() >= cutoff.getTime()) return false;
        await this.remove(manager, req, 'system', 'abandoned');
        return true;
      });
      if (done) removed++;
    }
    if (removed) this.log.log(`removed ${removed} unsaved draft(s) older than 24 h`);
    return removed;
  }

  private async remove(manager: EntityManager, req: RequestEntity, actor: string, reason: 'back' | 'abandoned') {
    const now = this.clock.now();
    const clientReference = req.clientReference;
    req.deletedAt = now;
    req.clientReference = null;
    req.updatedAt = now;
    await manager.save(RequestEntity, req);
    await this.audit.record(manager, {
      orgId: req.orgId,
      refId: req.refId,
      type: 'request.discarded',
      actor,
      data: { reason, ...(clientReference ? { clientReference } : {}) },
    });
  }
}

/** A draft that was uploaded and never saved (nor sent): not listed. */
export const isUnsaved = (req: RequestEntity): boolean => req.isDraft && req.listedAt === null;
