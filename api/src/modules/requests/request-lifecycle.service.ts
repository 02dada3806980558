import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AdminMessages, DEFAULT_RECTANGLE, RequestMessages, type PlacementsInput } from '@esign/contract';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { JobEntity } from '../jobs/job.entity';
import { placeBoxes } from '../documents/pdf/placement';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { LinksService } from '../secrets/links.service';
import { PartyEntity } from './party.entity';
import { RequestEntity } from './request.entity';
import { RequestEvents } from './request-events';
import { RequestDrafts, groupByRef } from './request-drafts.service';
import { lockFor, RequestRepository } from './request-repository';
import { partyTransition } from './rules';
import { SEAL_JOB, SealQueue } from './seal.queue';

const MIN_RESEND_SECONDS = 60;

/**
 * A request's life once staff act on it: process (submit and invite), invite, resend, delete, cancel, reseal, and the
 * jobs' reminders and expiry; and partySigned(), which the seal job calls when a party's signature is committed (the next
 * signer of a sequential request is invited). Every change runs in one transaction with its audit events, the jobs and
 * messages it causes and the webhook deliveries.
 */
@Injectable()
export class RequestLifecycle {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
    private readonly events: RequestEvents,
    private readonly repo: RequestRepository,
    private readonly drafts: RequestDrafts,
    private readonly seals: SealQueue,
  ) {}

  /**
   * POST /v1/process: saves any placements sent, then submits each draft named: invites the first signer
   * (sequential) or every signer (parallel). Processing a request already sent changes nothing (a double click).
   */
  async process(auth: AuthContext, entries: PlacementsInput): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      const org = await this.repo.organisation(auth.orgId, manager);
      for (const [refId, list] of groupByRef(entries)) {
        const req = await this.repo.lockRequest(manager, auth.orgId, refId);
        if (!req.isDraft) continue;
        const hasPlacement = list.some(
          (e) =>
            e.rectangle !== undefined || e.pageNo !== undefined || e.apply_all !== undefined || e.fields !== undefined,
        );
        if (hasPlacement) await this.drafts.applyPlacements(manager, auth, req, list);
        await this.submit(manager, auth, org, req);
      }
    });
    return { code: 200, message: RequestMessages.processed };
  }

  private async submit(manager: EntityManager, auth: AuthContext, org: OrganisationEntity, req: RequestEntity) {
    const now = this.clock.now();
    const parties = await this.repo.parties(manager, req.refId);
    for (const p of parties) {
      // A signer whose box was never placed signs at the default place: bottom-left of page 1.
      if (!p.observer && !p.boxes?.length) {
        p.pageNo = [1];
        p.rectangle = DEFAULT_RECTANGLE;
        p.boxes = placeBoxes({
          rectangle: DEFAULT_RECTANGLE,
          pageNo: [1],
          applyAll: false,
          totalPages: req.totalPages,
          geometry: req.geometry,
        });
      }
    }
    req.status = 'in-progress';
    req.isDraft = false;
    req.submittedAt = now;
    // Listed by the time it was sent, so newest first holds for a draft submitted long after its upload.
    req.listedAt = now;
    req.expiresAt = new Date(now.getTime() + org.requestExpiryDays * 86_400_000);
    req.updatedAt = now;
    await manager.save(RequestEntity, req);
    await this.audit.record(manager, {
      orgId: req.orgId,
      refId: req.refId,
      type: 'request.submitted',
      actor: actorOf(auth),
      data: { checkOrder: req.checkOrder, otpRequired: req.otpRequired, expiresAt: req.expiresAt.toISOString() },
    });
    const signers = parties.filter((p) => !p.observer);
    const first = signers[0];
    for (const p of parties) {
      p.updatedAt = now;
      if (p.observer || (req.checkOrder && p !== first)) {
        p.status = 'waiting';
        await manager.save(PartyEntity, p);
      }
    }
    for (const p of req.checkOrder ? [first] : signers) await this.invite(manager, org, req, p, actorOf(auth));
    await this.events.submitted(manager, org, req, parties);
  }

  /** Gives the party a fresh link (the previous one dies) and sends the invitation. */
  async invite(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    actor: string,
    resend = false,
  ): Promise<void> {
    const now = this.clock.now();
    const nonce = this.links.newNonce();
    party.tokenNonce = nonce;
    party.tokenHash = this.links.tokenHash(await this.links.partyToken(nonce));
    party.status = 'in-progress';
    party.invitedAt = now;
    party.updatedAt = now;
    await manager.save(PartyEntity, party);
    const signUrl = (await this.links.signUrl(req.orgId, req.refId, party.order, nonce)) as string;
    await this.audit.record(manager, {
      orgId: req.orgId,
      refId: req.refId,
      partyOrder: party.order,
      type: resend ? 'party.reinvited' : 'party.invited',
      actor,
      data: { email: party.email, phoneNumber: party.phoneNumber },
    });
    await this.events.invited(manager, org, req, party, signUrl, resend);
  }

  /**
   * A party's signature is committed (the seal job calls it in the transaction that completed the party): the
   * request's events for it, then the next signer of a sequential request is invited.
   */
  async partySigned(
    manager: EntityManager,
    req: RequestEntity,
    parties: PartyEntity[],
    party: PartyEntity,
  ): Promise<void> {
    await this.events.signed(manager, req, party);
    if (!req.checkOrder) return;
    const next = parties.find((p) => !p.observer && p.status === 'waiting');
    if (next) await this.invite(manager, await this.repo.organisation(req.orgId, manager), req, next, 'system');
  }

  /** GET /v1/resend_invite/{orgId}/{refId}/{order}: only for a party in progress; a new link, the old one dead. */
  async resendInvite(auth: AuthContext, refId: number, order: number): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      const org = await this.repo.organisation(auth.orgId, manager);
      const req = await this.repo.lockRequest(manager, auth.orgId, refId);
      const party = (await this.repo.parties(manager, req.refId)).find((p) => p.order === order);
      if (!party) throw new AppError('NOT_FOUND', RequestMessages.partyNotFound);
      if (req.status !== 'in-progress' || party.status !== 'in-progress')
        throw new AppError('CONFLICT', RequestMessages.notInProgress);
      const since = party.invitedAt ? (this.clock.now().getTime() - party.invitedAt.getTime()) / 1000 : Infinity;
      if (since < MIN_RESEND_SECONDS) {
        const wait = Math.ceil(MIN_RESEND_SECONDS - since);
        throw new AppError(
          'TOO_MANY_ATTEMPTS',
          `The invite was just sent. Please wait ${wait} seconds before resending it.`,
          {
            'Retry-After': String(wait),
          },
        );
      }
      await this.invite(manager, org, req, party, actorOf(auth), true);
    });
    return { code: 200, message: RequestMessages.inviteSent };
  }

  /**
   * GET /v1/deleteRef: a draft is deleted; a request already sent is cancelled (links dead, reminders stopped,
   * parties told by webhook) and leaves the lists. Its audit trail and documents stay.
   */
  async delete(auth: AuthContext, refId: unknown): Promise<{ code: 200; message: string }> {
    await this.db.transaction(async (manager) => {
      const req = await this.repo.lockRequest(manager, auth.orgId, refId);
      const now = this.clock.now();
      const wasOpen = req.status === 'in-progress';
      if (wasOpen) {
        req.status = 'cancelled';
        req.endedAt = now;
        const parties = await this.repo.parties(manager, req.refId);
        for (const p of parties) {
          if (p.status === 'completed' || p.status === 'rejected') continue;
          // The link stays known so the signer page can say 'Your eSign request has been cancelled.'; the request's
          // status refuses every action and the reference call shows no document or personal data.
          p.status = 'cancelled';
          p.updatedAt = now;
          await manager.save(PartyEntity, p);
        }
      }
      req.deletedAt = now;
      req.updatedAt = now;
      await manager.save(RequestEntity, req);
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId: req.refId,
        type: wasOpen ? 'request.cancelled' : 'request.deleted',
        actor: actorOf(auth),
      });
      await this.events.deleted(manager, req);
    });
    return { code: 200, message: RequestMessages.deleted };
  }

  /**
   * POST /api/requests/{id}/cancel (issue 22): ends a request in progress. Every party not done is cancelled (its link
   * then only tells 'Your eSign request has been cancelled.'), the invited ones who had not finished are told by
   * e-mail, the `request.cancelled` webhook and audit event (actor and reason) follow. The request stays listed.
   */
  async cancel(auth: AuthContext, refId: number, reason?: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const req = await this.repo.lockRequest(manager, auth.orgId, refId);
      if (req.status !== 'in-progress') throw new AppError('CONFLICT', AdminMessages.requestNotCancellable);
      const org = await this.repo.organisation(auth.orgId, manager);
      const now = this.clock.now();
      req.status = 'cancelled';
      req.endedAt = now;
      req.updatedAt = now;
      await manager.save(RequestEntity, req);
      const told: PartyEntity[] = [];
      for (const p of await this.repo.parties(manager, refId)) {
        const next = partyTransition(p.status, 'cancel');
        if (!next) continue;
        // The ones whose turn had come (invited, not a copy-receiver) heard of the request: they hear of its end.
        if (!p.observer && p.status !== 'waiting') told.push(p);
        p.status = next;
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
      }
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId,
        type: 'request.cancelled',
        actor: actorOf(auth),
        data: { reason: reason ?? null, told: told.map((p) => p.order) },
      });
      await this.events.cancelled(manager, org, req, told, reason ?? null);
    });
  }

  /**
   * POST /api/requests/{id}/reseal (issue 22): queues the seal job again for a request in progress whose seal failed
   * (`seal_error` set, or its last seal job ended failed), as `manage reseal` runs it without --accept-level: never
   * below the organisation's level. Audited.
   */
  async reseal(auth: AuthContext, refId: number): Promise<void> {
    await this.db.transaction(async (manager) => {
      const req = await this.repo.lockRequest(manager, auth.orgId, refId);
      if (req.status !== 'in-progress' || !(req.sealError || (await this.lastSealJobFailed(manager, req))))
        throw new AppError('CONFLICT', AdminMessages.requestNotResealable);
      const job = await this.seals.enqueue(manager, req, null, 'reseal');
      await this.audit.record(manager, {
        orgId: auth.orgId,
        refId,
        type: 'request.reseal_requested',
        actor: actorOf(auth),
        data: { sealError: req.sealError, job: job.id },
      });
    });
  }

  /** Whether the request's latest seal job that ended, ended failed (a job can fail without a seal error: a crash). */
  private async lastSealJobFailed(manager: EntityManager, req: RequestEntity): Promise<boolean> {
    // The payload is JSON text on both engines: the LIKE narrows, the payload's refId decides.
    const jobs = await manager
      .createQueryBuilder(JobEntity, 'j')
      .select(['j.id', 'j.status', 'j.payload'])
      .where('j.type = :type', { type: SEAL_JOB })
      .andWhere('j.org_id = :orgId', { orgId: req.orgId })
      .andWhere('j.status IN (:...ended)', { ended: ['done', 'failed'] })
      .andWhere('j.payload LIKE :pattern', { pattern: `%"refId":${req.refId}%` })
      .orderBy('j.id', 'DESC')
      .getMany();
    const last = jobs.find((j) => Number(j.payload.refId) === req.refId);
    return last?.status === 'failed';
  }

  /** Reminder job: reminds every invited party still pending, and schedules the next one. */
  async remind(orgId: string, refId: number): Promise<number> {
    return this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, { where: { orgId, refId }, ...lockFor(manager) });
      if (!req || req.deletedAt || req.status !== 'in-progress' || !req.reminder || !req.reminderDuration) return 0;
      const org = await this.repo.organisation(orgId, manager);
      const now = this.clock.now();
      // A party whose signature is submitted and waits for its seal (status still 'signing') has nothing left to do.
      const pending = (await this.repo.parties(manager, refId)).filter(
        (p) =>
          !p.observer && !p.signatureSubmittedAt && ['in-progress', 'opened', 'signing', 'failed'].includes(p.status),
      );
      for (const p of pending) {
        p.remindedAt = now;
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
        const signUrl = (await this.links.signUrl(orgId, refId, p.order, p.tokenNonce)) as string;
        await this.audit.record(manager, {
          orgId,
          refId,
          partyOrder: p.order,
          type: 'party.reminded',
          actor: 'system',
        });
        await this.events.reminded(manager, org, req, p, signUrl);
      }
      await this.events.scheduleReminder(manager, req, now);
      return pending.length;
    });
  }

  /** Expiry job: ends a request still in progress at its expiry and tells the parties still pending. */
  async expire(orgId: string, refId: number): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const req = await manager.findOne(RequestEntity, { where: { orgId, refId }, ...lockFor(manager) });
      const now = this.clock.now();
      if (!req || req.status !== 'in-progress' || !req.expiresAt) return false;
      if (req.expiresAt.getTime() > now.getTime()) {
        await this.events.scheduleExpiry(manager, req);
        return false;
      }
      const org = await this.repo.organisation(orgId, manager);
      req.status = 'expired';
      req.endedAt = now;
      req.updatedAt = now;
      await manager.save(RequestEntity, req);
      const parties = await this.repo.parties(manager, refId);
      const pending: PartyEntity[] = [];
      for (const p of parties) {
        if (p.status === 'completed' || p.status === 'rejected') continue;
        if (!p.observer && p.status !== 'waiting') pending.push(p);
        // As for cancelling: the link only shows 'The signature request has expired.' from now on.
        p.status = 'expired';
        p.updatedAt = now;
        await manager.save(PartyEntity, p);
      }
      await this.audit.record(manager, { orgId, refId, type: 'request.expired', actor: 'system' });
      await this.events.expired(manager, org, req, pending);
      return true;
    });
  }
}
