import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RETENTION_AUDIT_EVENTS, RETENTION_ENDED_STATUSES } from '@esign/contract';
import { DataSource, In, IsNull, LessThanOrEqual, Not, type EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { JSON_KEY_COLUMNS, stillReferenced, type RowReader } from '../../database/document-references';
import { AuditService } from '../audit/audit.service';
import { RecurringJobs } from '../jobs/recurring-jobs';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { DocumentStorage } from '../storage/document-storage';

/** The recurring job of retention (one at a time across every node). */
export const RETENTION_JOB = 'retention.run';
/** Requests handled per organisation and per pass; a pass that hits it runs again a minute later. */
const BATCH = 100;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HEX_KEY = /\b[0-9a-f]{64}\b/g;

export interface RetentionOutcome {
  /** Requests whose documents were deleted, and whose selfies alone were. */
  files: number;
  media: number;
  /** Stored files deleted (a file another live row still needs is kept). */
  deleted: number;
}

/**
 * Retention (issue 24): per organisation, requests that ended (completed, rejected, expired, cancelled) more than
 * `retention_days` ago lose their documents (the original, every signed version, signature images, attachments,
 * prepared files, selfies); those that ended more than `media_retention_days` ago lose their selfies (videos are
 * never stored). The request keeps its rows, its audit trail and the documents' SHA-256 (its keys), so its chain still
 * verifies; the lists show it as archived. Each deletion is an audit event of its own, committed with the mark
 * (files_deleted_at, media_deleted_at) before any file goes: a crash between leaves files no row needs, never a row
 * whose file is gone unmarked. Storage is content-addressed: a file is deleted only when no live row of any request
 * or organisation refers to it (database/document-references.ts).
 */
@Injectable()
export class RetentionService implements OnModuleInit {
  private readonly log = new Logger('Retention');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly recurring: RecurringJobs,
    private readonly audit: AuditService,
    private readonly storage: DocumentStorage,
  ) {}

  onModuleInit(): void {
    this.recurring.register(RETENTION_JOB, async () => {
      const outcome = await this.run();
      const more = outcome.files + outcome.media >= BATCH;
      return new Date(this.clock.now().getTime() + (more ? 60_000 : HOUR));
    });
  }

  /** One pass over every organisation with a retention period. */
  async run(): Promise<RetentionOutcome> {
    const outcome: RetentionOutcome = { files: 0, media: 0, deleted: 0 };
    const orgs = await this.db.getRepository(OrganisationEntity).find({
      where: [{ retentionDays: Not(IsNull()) }, { mediaRetentionDays: Not(IsNull()) }],
    });
    const now = this.clock.now();
    for (const org of orgs) {
      if (org.retentionDays !== null) {
        for (const req of await this.due(org.id, new Date(now.getTime() - org.retentionDays * DAY), 'filesDeletedAt')) {
          const deleted = await this.deleteFiles(req, org.retentionDays, now);
          if (deleted === null) continue;
          outcome.files++;
          outcome.deleted += deleted;
        }
      }
      const mediaDays = org.mediaRetentionDays ?? null;
      if (mediaDays !== null && (org.retentionDays === null || mediaDays < org.retentionDays)) {
        for (const req of await this.due(org.id, new Date(now.getTime() - mediaDays * DAY), 'mediaDeletedAt')) {
          const deleted = await this.deleteMedia(req, mediaDays, now);
          if (deleted === null) continue;
          outcome.media++;
          outcome.deleted += deleted;
        }
      }
    }
    if (outcome.files || outcome.media)
      this.log.log(
        `retention: the documents of ${outcome.files} request(s) and the selfies of ${outcome.media} deleted (${outcome.deleted} files)`,
      );
    return outcome;
  }

  private due(orgId: string, cutoff: Date, mark: 'filesDeletedAt' | 'mediaDeletedAt'): Promise<RequestEntity[]> {
    return this.db.getRepository(RequestEntity).find({
      where: {
        orgId,
        status: In([...RETENTION_ENDED_STATUSES]),
        endedAt: LessThanOrEqual(cutoff),
        filesDeletedAt: IsNull(),
        ...(mark === 'mediaDeletedAt' ? { mediaDeletedAt: IsNull() } : {}),
      },
      order: { endedAt: 'ASC' },
      take: BATCH,
    });
  }

  /** Marks the request, audits it, then deletes its files; null when another pass got there first. */
  private async deleteFiles(req: RequestEntity, days: number, now: Date): Promise<number | null> {
    const candidates = await this.keysOf(req.refId, 'all');
    const marked = await this.db.transaction(async (manager) => {
      const done = await manager.update(
        RequestEntity,
        { refId: req.refId, filesDeletedAt: IsNull() },
        { filesDeletedAt: now, mediaDeletedAt: req.mediaDeletedAt ?? now, archiveRenewAt: null, updatedAt: now },
      );
      if (!done.affected) return false;
      await this.audit.record(manager, {
        orgId: req.orgId,
        refId: req.refId,
        type: RETENTION_AUDIT_EVENTS.filesDeleted,
        actor: 'retention',
        data: {
          retention_days: days,
          ended_at: req.endedAt?.toISOString() ?? null,
          file_sha256: req.fileKey,
          signed_file_sha256: req.signedFileKey,
          files: candidates.length,
        },
      });
      return true;
    });
    return marked ? this.deleteUnreferenced(candidates) : null;
  }

  private async deleteMedia(req: RequestEntity, days: number, now: Date): Promise<number | null> {
    const candidates = await this.keysOf(req.refId, 'media');
    const marked = await this.db.transaction(async (manager) => {
      const done = await manager.update(
        RequestEntity,
        { refId: req.refId, mediaDeletedAt: IsNull(), filesDeletedAt: IsNull() },
        { mediaDeletedAt: now, updatedAt: now },
      );
      if (!done.affected) return false;
      await this.audit.record(manager, {
        orgId: req.orgId,
        refId: req.refId,
        type: RETENTION_AUDIT_EVENTS.mediaDeleted,
        actor: 'retention',
        data: { media_retention_days: days, ended_at: req.endedAt?.toISOString() ?? null, selfies: candidates.length },
      });
      return true;
    });
    return marked ? this.deleteUnreferenced(candidates) : null;
  }

  /**
   * Every storage key of a request: its documents, its parties' selfies, signature images and attachments, its
   * outside signatures' files, and the intermediate signed versions its audit trail names (no row keeps those).
   */
  async keysOf(refId: number, what: 'all' | 'media', manager: EntityManager = this.db.manager): Promise<string[]> {
    const keys = new Set<string>();
    const parties = await manager.find(PartyEntity, { where: { refId } });
    for (const p of parties) if (p.selfieKey) keys.add(p.selfieKey);
    if (what === 'media') return [...keys];
    const req = await manager.findOneByOrFail(RequestEntity, { refId });
    keys.add(req.fileKey);
    if (req.signedFileKey) keys.add(req.signedFileKey);
    const [fieldsColumn] = JSON_KEY_COLUMNS;
    for (const p of parties) {
      if (p.signatureKey) keys.add(p.signatureKey);
      if (p.fields) for (const k of fieldsColumn.keysOf(JSON.stringify(p.fields))) keys.add(k);
    }
    const rows = (await manager.query(
      'SELECT base_file_key AS a, prepared_file_key AS b, cms_key AS c FROM external_signatures WHERE ref_id = ? UNION ALL SELECT base_file_key, prepared_file_key, NULL FROM esign_transactions WHERE ref_id = ?',
      [refId, refId],
    )) as { a: string | null; b: string | null; c: string | null }[];
    for (const r of rows) for (const k of [r.a, r.b, r.c]) if (k) keys.add(k);
    const events = (await manager.query('SELECT data FROM audit_events WHERE ref_id = ?', [refId])) as {
      data: unknown;
    }[];
    for (const e of events) {
      const text = typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? null);
      for (const k of text.match(HEX_KEY) ?? []) keys.add(k);
    }
    return [...keys];
  }

  /** Deletes the keys no live row refers to any more; answers how many files went. */
  async deleteUnreferenced(candidates: string[]): Promise<number> {
    const read: RowReader = async (sql, params = []) => (await this.db.query(sql, params)) as Record<string, unknown>[];
    const needed = await stillReferenced(read, candidates);
    let deleted = 0;
    for (const key of candidates) {
      if (needed.has(key)) continue;
      try {
        if (await this.storage.delete(key)) deleted++;
      } catch (err) {
        // Left behind (the mark is committed): a file no row needs, logged for the operator.
        this.log.warn(`retention could not delete the stored file ${key}: ${(err as Error).message}`);
      }
    }
    return deleted;
  }
}
