import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  INVITATION_SEND_LIMIT_SECONDS,
  SIGNING_TIME_LIMITS_SECONDS,
  SigningMethod,
  WATCHDOG_FINDING_KINDS,
  WATCHDOG_MAX_RETRIES,
  WatchdogMessages,
  type SigningMethodCode,
  type WatchdogFinding,
  type WatchdogFindingKind,
  type WatchdogFindingListQuery,
} from '@esign/contract';
import { DataSource, In, IsNull, Not, type FindOptionsWhere } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import type { ListPage } from '../../common/rest-query';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';
import { ADMIN_NOTICE_JOB, type AdminNoticePayload, type StuckItem } from '../jobs/admin-notice';
import { JobEntity } from '../jobs/job.entity';
import { retryDelayMs } from '../jobs/jobs.runner';
import { JobsService } from '../jobs/jobs.service';
import { RecurringJobs } from '../jobs/recurring-jobs';
import { MetricsService } from '../metrics/metrics.service';
import { NotificationsService } from '../notifications/notifications.service';
import { OutboxMessageEntity } from '../notifications/outbox-message.entity';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { RequestLifecycle } from '../requests/request-lifecycle.service';
import { RequestRepository } from '../requests/request-repository';
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, SealQueue } from '../requests/seal.queue';
import { WebhooksService } from '../webhooks/webhooks.service';
import { WatchdogFindingEntity } from './watchdog-finding.entity';

/** The recurring job that scans (its dedupe key is its type: one at a time across every node). */
export const WATCHDOG_JOB = 'watchdog.scan';

/** What a scan saw of one thing that should have moved. */
interface Sighting {
  orgId: string;
  refId: number;
  partyOrder: number | null;
  kind: WatchdogFindingKind;
  detail: string;
  /** Whether a retry can do something (queue the seal, send the failed messages again, invite the next signer). */
  retryable: boolean;
  /** The failed messages to send again (invitation_not_sent). */
  messageIds?: number[];
  /** The next signer to invite (invitation_not_sent of a sequential request). */
  invite?: boolean;
}

export interface ScanOutcome {
  /** Things seen stuck this scan. */
  seen: number;
  retried: number;
  reported: number;
  resolved: number;
}

const keyOf = (s: Pick<Sighting, 'kind' | 'refId' | 'partyOrder'>) => `${s.kind}:${s.refId}:${s.partyOrder ?? '-'}`;

const METHOD_NAMES: Record<SigningMethodCode, string> = {
  [SigningMethod.Aadhaar]: 'Aadhaar eSign',
  [SigningMethod.DSC]: 'DSC',
  [SigningMethod.ESignature]: 'e-Signature',
};

/** "3 h 20 min", "45 min", "2 days 4 h": how long something has waited, for a person. */
export function duration(ms: number): string {
  const minutes = Math.max(Math.floor(ms / 60_000), 1);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days) return `${days} day${days === 1 ? '' : 's'}${hours ? ` ${hours} h` : ''}`;
  if (hours) return `${hours} h${mins ? ` ${mins} min` : ''}`;
  return `${mins} min`;
}

/**
 * The watchdog (issue 24): a recurring job that finds what should have moved and did not, retries what is safe to
 * retry and reports the rest. It never writes a request's or a party's status: a retry queues the seal job (which
 * completes a request as it always does), sends failed messages again through the outbox, or invites the next
 * signer through the lifecycle, each with its audit event. What it cannot move is reported once: the finding's
 * state, the `request.stuck` webhook, an e-mail to the organisation's administrators, `esign_watchdog_findings`, and
 * the console's banner (GET /api/watchdog/findings) with its Retry (POST …/retry).
 */
@Injectable()
export class WatchdogService implements OnModuleInit {
  private readonly log = new Logger('Watchdog');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly recurring: RecurringJobs,
    private readonly jobs: JobsService,
    private readonly audit: AuditService,
    private readonly metrics: MetricsService,
    private readonly notifications: NotificationsService,
    private readonly webhooks: WebhooksService,
    private readonly repo: RequestRepository,
    private readonly lifecycle: RequestLifecycle,
    private readonly seals: SealQueue,
  ) {}

  onModuleInit(): void {
    this.recurring.register(WATCHDOG_JOB, async () => {
      await this.scan();
      return new Date(this.clock.now().getTime() + this.config.watchdog.intervalSeconds * 1000);
    });
    this.metrics.readWatchdogWith(() => this.counts(), WATCHDOG_FINDING_KINDS, ['open', 'reported']);
  }

  private get findings() {
    return this.db.getRepository(WatchdogFindingEntity);
  }

  /** One pass: record what is stuck, resolve what moved, retry what may be retried, report the rest. */
  async scan(): Promise<ScanOutcome> {
    const now = this.clock.now();
    const { stuck, busy } = await this.look(now);
    const outcome: ScanOutcome = { seen: stuck.length, retried: 0, reported: 0, resolved: 0 };
    const unresolved = await this.findings.find({ where: { openKey: Not(IsNull()) } });
    const byKey = new Map(unresolved.map((f) => [f.openKey!, f]));
    const seenKeys = new Set([...stuck.map(keyOf), ...busy]);

    // Moved on (completed, signed, sent, cancelled…): resolved.
    for (const f of unresolved) {
      if (seenKeys.has(f.openKey!)) continue;
      await this.findings.update(
        { id: f.id, openKey: f.openKey! },
        { state: 'resolved', resolvedAt: now, openKey: null, nextRetryAt: null },
      );
      outcome.resolved++;
    }

    const reports = new Map<string, StuckItem[]>();
    for (const s of stuck) {
      let finding = byKey.get(keyOf(s)) ?? null;
      if (finding) {
        const seen = { lastSeenAt: now, detail: s.detail.slice(0, 500), retryable: s.retryable };
        await this.findings.update({ id: finding.id }, seen);
        Object.assign(finding, seen);
      } else finding = await this.insert(s, now);
      if (!finding) continue;
      const mayRetry = s.retryable && finding.retries < WATCHDOG_MAX_RETRIES;
      if (mayRetry && (!finding.nextRetryAt || finding.nextRetryAt <= now)) {
        if (await this.retry(finding, s, 'watchdog')) {
          this.metrics.watchdogRetried(s.kind);
          outcome.retried++;
        }
        continue;
      }
      if (mayRetry || finding.state !== 'open') continue;
      // Not safe to retry, or retried enough: a person must look. Told once.
      const reported = await this.report(finding, s, now);
      if (reported) {
        outcome.reported++;
        reports.set(s.orgId, [...(reports.get(s.orgId) ?? []), reported]);
      }
    }
    for (const [orgId, items] of reports) {
      await this.db.transaction((manager) =>
        this.jobs.enqueue(manager, {
          type: ADMIN_NOTICE_JOB,
          payload: { orgId, notice: { kind: 'watchdog', items } } satisfies AdminNoticePayload,
          orgId,
        }),
      );
    }
    if (outcome.seen || outcome.resolved)
      this.log.log(
        `scan: ${outcome.seen} stuck, ${outcome.retried} retried, ${outcome.reported} reported, ${outcome.resolved} resolved`,
      );
    return outcome;
  }

  /** GET /api/watchdog/findings: the organisation's findings, the latest seen first, paged in the database. */
  async list(orgId: string, query: WatchdogFindingListQuery): Promise<ListPage<WatchdogFinding>> {
    const { start, limit, sort, order, filter } = query;
    const where: FindOptionsWhere<WatchdogFindingEntity> = { orgId };
    if (filter.state) where.state = filter.state as WatchdogFindingEntity['state'];
    if (filter.kind) where.kind = filter.kind as WatchdogFindingKind;
    if (filter.resolved !== undefined) where.resolvedAt = filter.resolved ? Not(IsNull()) : IsNull();
    const column = {
      id: 'id',
      last_seen_at: 'lastSeenAt',
      first_seen_at: 'firstSeenAt',
      kind: 'kind',
      state: 'state',
    } as const;
    const [rows, total] = await this.findings.findAndCount({
      where,
      order: { [column[sort]]: order, id: order },
      skip: start,
      take: limit,
    });
    return { rows: await this.toContract(rows), start, total };
  }

  async get(orgId: string, id: number): Promise<WatchdogFinding> {
    return (await this.toContract([await this.find(orgId, id)]))[0];
  }

  /**
   * POST /api/watchdog/findings/{id}/retry: the same retry the watchdog makes by itself, now, whoever asks (a person's
   * retries are not limited). 409 when it moved on already, or when nothing but the signer can move it.
   */
  async retryNow(orgId: string, id: number, actor: string): Promise<WatchdogFinding> {
    const finding = await this.find(orgId, id);
    if (!finding.openKey) throw new AppError('CONFLICT', WatchdogMessages.alreadyResolved);
    const { stuck, busy } = await this.look(this.clock.now(), finding.refId);
    const sighting = stuck.find((s) => keyOf(s) === finding.openKey);
    if (!sighting) {
      if (busy.has(finding.openKey)) return this.get(orgId, id);
      throw new AppError('CONFLICT', WatchdogMessages.alreadyResolved);
    }
    if (!sighting.retryable) throw new AppError('CONFLICT', WatchdogMessages.notRetryable);
    await this.retry(finding, sighting, actor);
    return this.get(orgId, id);
  }

  private async find(orgId: string, id: number): Promise<WatchdogFindingEntity> {
    const finding = await this.findings.findOne({ where: { id, orgId } });
    if (!finding) throw new AppError('NOT_FOUND', WatchdogMessages.findingNotFound.replace('{id}', String(id)));
    return finding;
  }

  private async insert(s: Sighting, now: Date): Promise<WatchdogFindingEntity | null> {
    const row = this.findings.create({
      orgId: s.orgId,
      refId: s.refId,
      partyOrder: s.partyOrder,
      kind: s.kind,
      state: 'open',
      detail: s.detail.slice(0, 500),
      retryable: s.retryable,
      retries: 0,
      firstSeenAt: now,
      lastSeenAt: now,
      nextRetryAt: null,
      reportedAt: null,
      resolvedAt: null,
      openKey: keyOf(s),
    });
    try {
      await this.findings.insert(row);
      return row;
    } catch {
      // Another scan recorded it first (the unique open key): that one acts.
      return null;
    }
  }

  /**
   * Moves the thing on through the flow's own calls, with an audit event on the request saying who retried
   * (`request.watchdog_retry`), and counts the retry on the finding. False when it moved on meanwhile.
   */
  private async retry(finding: WatchdogFindingEntity, s: Sighting, actor: string): Promise<boolean> {
    const now = this.clock.now();
    const done = await this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, { where: { orgId: s.orgId, refId: s.refId } });
      if (!req || req.status !== 'in-progress') return false;
      const locked = await this.repo.lockRequest(manager, s.orgId, s.refId);
      const data: Record<string, unknown> = { kind: s.kind, finding: finding.id, retry: finding.retries + 1 };
      if (s.kind === 'seal_stuck') {
        const job = await this.seals.enqueue(manager, locked, null, 'watchdog');
        data.job = job.id;
      } else if (s.messageIds?.length) {
        const sent: number[] = [];
        for (const id of s.messageIds) {
          const copy = await this.notifications.resend(manager, id);
          if (copy) sent.push(copy.id);
        }
        if (!sent.length) return false;
        data.messages = sent;
      } else if (s.invite) {
        const parties = await this.repo.parties(manager, s.refId);
        const next = parties.find((p) => p.order === s.partyOrder);
        if (!next || next.status !== 'waiting') return false;
        const org = await this.repo.organisation(s.orgId, manager);
        await this.lifecycle.invite(manager, org, locked, next, actor);
      } else return false;
      await this.audit.record(manager, {
        orgId: s.orgId,
        refId: s.refId,
        partyOrder: s.partyOrder,
        type: 'request.watchdog_retry',
        actor,
        data,
      });
      const retries = finding.retries + 1;
      await manager.update(
        WatchdogFindingEntity,
        { id: finding.id },
        {
          retries,
          state: 'open',
          lastSeenAt: now,
          // The jobs' backoff between the watchdog's own retries; none once they are used up.
          nextRetryAt: retries < WATCHDOG_MAX_RETRIES ? new Date(now.getTime() + retryDelayMs(retries)) : null,
        },
      );
      return true;
    });
    if (done) this.log.log(`request ${s.refId}: ${s.kind} retried by ${actor}`);
    return done;
  }

  /** Reports a finding once: its state, and the `request.stuck` webhook in the same transaction. */
  private async report(finding: WatchdogFindingEntity, s: Sighting, now: Date): Promise<StuckItem | null> {
    return this.db.transaction(async (manager) => {
      const taken = await manager.update(
        WatchdogFindingEntity,
        { id: finding.id, state: 'open' },
        { state: 'reported', reportedAt: now, nextRetryAt: null },
      );
      if (!taken.affected) return null;
      const req = await manager.findOne(RequestEntity, { where: { orgId: s.orgId, refId: s.refId } });
      if (!req) return null;
      await this.webhooks.emit(manager, s.orgId, 'request.stuck', {
        refId: req.refId,
        filename: req.filename,
        status: req.status,
        kind: s.kind,
        detail: s.detail,
        partyOrder: s.partyOrder,
        findingId: finding.id,
        retries: finding.retries,
      });
      this.log.warn(`request ${s.refId}: ${s.kind} reported (${s.detail})`);
      return { refId: req.refId, filename: req.filename, kind: s.kind, detail: s.detail, partyOrder: s.partyOrder };
    });
  }

  /**
   * What is stuck now (`stuck`), and the keys of what still looks stuck but is being moved (`busy`: a seal job queued
   * or running, messages being sent again), which must not be taken as resolved. Every organisation, or one request.
   */
  private async look(now: Date, refId?: number): Promise<{ stuck: Sighting[]; busy: Set<string> }> {
    const stuck: Sighting[] = [];
    const busy = new Set<string>();
    const m = this.db.manager;
    const open = await m.find(RequestEntity, {
      select: {
        refId: true,
        orgId: true,
        checkOrder: true,
        signersTotal: true,
        signersDone: true,
        sealError: true,
        filename: true,
      },
      where: { status: 'in-progress', isDraft: false, deletedAt: IsNull(), ...(refId ? { refId } : {}) },
    });
    if (!open.length) return { stuck, busy };
    const requests = new Map(open.map((r) => [r.refId, r]));
    const parties = await this.partiesOf([...requests.keys()]);
    const activeSeals = await this.activeSealJobs([...new Set(open.map((r) => r.orgId))]);

    for (const req of open) {
      const all = parties.get(req.refId) ?? [];
      const signers = all.filter((p) => !p.observer);
      // Signatures waiting to be applied, or every one applied and the seal not done.
      const waiting = signers.some((p) => p.signatureSubmittedAt && p.status !== 'completed');
      const sealed = signers.length > 0 && signers.every((p) => p.status === 'completed');
      if (waiting || sealed) {
        const key = keyOf({ kind: 'seal_stuck', refId: req.refId, partyOrder: null });
        if (activeSeals.has(req.refId)) busy.add(key);
        else
          stuck.push({
            orgId: req.orgId,
            refId: req.refId,
            partyOrder: null,
            kind: 'seal_stuck',
            detail: await this.sealDetail(req),
            retryable: true,
          });
      }
      for (const p of signers) {
        if (p.status !== 'signing' || p.signatureSubmittedAt || !p.acceptedAt) continue;
        const limit = SIGNING_TIME_LIMITS_SECONDS[p.signMethod ?? 'none'] * 1000;
        const waited = now.getTime() - p.acceptedAt.getTime();
        if (waited <= limit) continue;
        stuck.push({
          orgId: req.orgId,
          refId: req.refId,
          partyOrder: p.order,
          kind: 'signing_too_long',
          detail: WatchdogMessages.signingTooLong
            .replace('{order}', String(p.order))
            .replace('{method}', p.signMethod === null ? 'no method chosen yet' : METHOD_NAMES[p.signMethod])
            .replace('{duration}', duration(waited)),
          retryable: false,
        });
      }
      // A sequential request whose next signer was never invited (the previous ones are all done).
      if (req.checkOrder && !waiting && !sealed && !activeSeals.has(req.refId)) {
        const next = signers.find((p) => p.status !== 'completed');
        if (
          next?.status === 'waiting' &&
          signers.slice(0, signers.indexOf(next)).every((p) => p.status === 'completed')
        )
          stuck.push({
            orgId: req.orgId,
            refId: req.refId,
            partyOrder: next.order,
            kind: 'invitation_not_sent',
            detail: WatchdogMessages.nextSignerNotInvited.replace('{order}', String(next.order)),
            retryable: true,
            invite: true,
          });
      }
    }
    await this.unsentInvitations(now, requests, parties, stuck, busy);
    return { stuck, busy };
  }

  /**
   * Invitations never sent: of the messages of a party's latest invitation (e-mail and SMS), none went out, and one
   * failed for good (retryable: sent again) or they waited past INVITATION_SEND_LIMIT_SECONDS (the runner is not
   * running them: reported).
   */
  private async unsentInvitations(
    now: Date,
    requests: Map<number, RequestEntity>,
    parties: Map<number, PartyEntity[]>,
    stuck: Sighting[],
    busy: Set<string>,
  ): Promise<void> {
    const invited = [...parties.values()]
      .flat()
      .filter((p) => !p.observer && p.status === 'in-progress' && p.invitedAt);
    const refIds = [...new Set(invited.map((p) => p.refId))];
    for (let i = 0; i < refIds.length; i += 500) {
      const chunk = refIds.slice(i, i + 500);
      const messages = await this.db.manager.find(OutboxMessageEntity, {
        select: { id: true, refId: true, partyOrder: true, channel: true, status: true, error: true, createdAt: true },
        where: { kind: 'invitation', refId: In(chunk) },
        order: { id: 'ASC' },
      });
      for (const p of invited.filter((x) => chunk.includes(x.refId))) {
        // The latest message of each channel since the party's latest invitation (a resend makes new ones).
        const latest = new Map<string, OutboxMessageEntity>();
        for (const msg of messages)
          if (msg.refId === p.refId && msg.partyOrder === p.order && msg.createdAt >= p.invitedAt!)
            latest.set(msg.channel, msg);
        const last = [...latest.values()];
        if (!last.length || last.some((msg) => msg.status === 'sent')) continue;
        const req = requests.get(p.refId)!;
        const key = keyOf({ kind: 'invitation_not_sent', refId: p.refId, partyOrder: p.order });
        const failed = last.filter((msg) => msg.status === 'failed');
        const base = { orgId: req.orgId, refId: p.refId, partyOrder: p.order, kind: 'invitation_not_sent' as const };
        if (failed.length) {
          const error = failed.map((msg) => msg.error ?? 'no answer').join('; ');
          stuck.push({
            ...base,
            detail: WatchdogMessages.invitationFailed.replace('{order}', String(p.order)).replace('{error}', error),
            retryable: true,
            messageIds: failed.map((msg) => msg.id),
          });
          continue;
        }
        const oldest = Math.min(...last.map((msg) => msg.createdAt.getTime()));
        if (now.getTime() - oldest > INVITATION_SEND_LIMIT_SECONDS * 1000)
          stuck.push({
            ...base,
            detail: WatchdogMessages.invitationWaiting
              .replace('{order}', String(p.order))
              .replace('{duration}', duration(now.getTime() - oldest)),
            retryable: false,
          });
        else busy.add(key);
      }
    }
  }

  /** The parties of these requests (what the watchdog reads of them), by request. */
  private async partiesOf(refIds: number[]): Promise<Map<number, PartyEntity[]>> {
    const map = new Map<number, PartyEntity[]>();
    for (let i = 0; i < refIds.length; i += 500) {
      const rows = await this.db.manager.find(PartyEntity, {
        select: {
          id: true,
          refId: true,
          order: true,
          observer: true,
          status: true,
          signMethod: true,
          acceptedAt: true,
          invitedAt: true,
          signatureSubmittedAt: true,
        },
        where: { refId: In(refIds.slice(i, i + 500)) },
        order: { order: 'ASC' },
      });
      for (const p of rows) map.set(p.refId, [...(map.get(p.refId) ?? []), p]);
    }
    return map;
  }

  /** The Ref IDs whose seal job is queued or running (nothing is stuck while one is). */
  private async activeSealJobs(orgIds: string[]): Promise<Set<number>> {
    const jobs = await this.db.manager.find(JobEntity, {
      select: { id: true, payload: true },
      where: { type: SEAL_JOB, status: In(['queued', 'running']), orgId: In(orgIds) },
    });
    return new Set(jobs.map((j) => Number(j.payload.refId)));
  }

  /** Why the seal is stuck: its last job failed (attempts or interruptions), or there is none. */
  private async sealDetail(req: RequestEntity): Promise<string> {
    // The payload is JSON text on both engines: the LIKE narrows, the payload's refId decides.
    const jobs = await this.db.manager
      .createQueryBuilder(JobEntity, 'j')
      .select(['j.id', 'j.status', 'j.payload', 'j.attempts', 'j.lastError', 'j.interruptions'])
      .where('j.type = :type', { type: SEAL_JOB })
      .andWhere('j.org_id = :orgId', { orgId: req.orgId })
      .andWhere('j.status = :failed', { failed: 'failed' })
      .andWhere('j.payload LIKE :pattern', { pattern: `%"refId":${req.refId}%` })
      .orderBy('j.id', 'DESC')
      .getMany();
    const last = jobs.find((j) => Number(j.payload.refId) === req.refId);
    if (!last) return WatchdogMessages.sealNoJob;
    if (last.attempts < SEAL_MAX_ATTEMPTS && /^interrupted/.test(last.lastError ?? ''))
      return WatchdogMessages.sealInterrupted;
    return WatchdogMessages.sealFailed
      .replace('{attempts}', String(last.attempts))
      .replace('{error}', (req.sealError ?? last.lastError ?? 'unknown error').slice(0, 300));
  }

  private async toContract(rows: WatchdogFindingEntity[]): Promise<WatchdogFinding[]> {
    const refIds = [...new Set(rows.map((r) => r.refId))];
    const requests = refIds.length
      ? await this.db.manager.find(RequestEntity, {
          select: { refId: true, filename: true },
          where: { refId: In(refIds) },
        })
      : [];
    const names = new Map(requests.map((r) => [r.refId, r.filename]));
    return rows.map((f) => ({
      id: f.id,
      refId: f.refId,
      filename: names.get(f.refId) ?? '',
      party_order: f.partyOrder,
      kind: f.kind,
      state: f.state,
      detail: f.detail,
      retries: f.retries,
      retryable: Boolean(f.openKey) && f.retryable,
      first_seen_at: f.firstSeenAt.toISOString(),
      last_seen_at: f.lastSeenAt.toISOString(),
      next_retry_at: f.nextRetryAt?.toISOString() ?? null,
      reported_at: f.reportedAt?.toISOString() ?? null,
      resolved_at: f.resolvedAt?.toISOString() ?? null,
    }));
  }

  /** Unresolved findings by `kind:state`, for esign_watchdog_findings. */
  private async counts(): Promise<Map<string, number>> {
    const rows = await this.findings
      .createQueryBuilder('f')
      .select('f.kind', 'kind')
      .addSelect('f.state', 'state')
      .addSelect('COUNT(*)', 'count')
      .where('f.open_key IS NOT NULL')
      .groupBy('f.kind')
      .addGroupBy('f.state')
      .getRawMany<{ kind: string; state: string; count: number | string }>();
    return new Map(rows.map((r) => [`${r.kind}:${r.state}`, Number(r.count)]));
  }
}
