import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { UserEntity } from '../auth/user.entity';
import { JobsService } from '../jobs/jobs.service';
import { NotificationsService } from '../notifications/notifications.service';
import type { RecipientLanguage } from '@esign/contract';
import * as Templates from '../notifications/templates';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import { WebhooksService } from '../webhooks/webhooks.service';
import { filledFields } from './fields';
import type { PartyEntity } from './party.entity';
import type { RequestEntity } from './request.entity';

export const REMIND_JOB = 'request.remind';
export const EXPIRE_JOB = 'request.expire';

const partyData = (req: RequestEntity, p: PartyEntity) => ({
  refId: req.refId,
  order: p.order,
  name: p.name,
  email: p.email,
  status: p.status,
});

/** What the rejection did about the staff user who sent the request (kept in the request.rejected audit event). */
export interface SenderNotice {
  senderNotified: boolean;
  /** Why not, when not. */
  senderReason?: 'no e-mail address' | 'sent with an organisation API key' | 'user disabled';
}

const requestData = (req: RequestEntity) => ({
  refId: req.refId,
  filename: req.filename,
  status: req.status,
  signers: req.signersTotal,
  signed: req.signersDone,
});

/** What an invitation or a reminder says: who asks, whom, for which document, by which link, until when. */
const linkMessage = (
  org: Pick<OrganisationEntity, 'name' | 'timeZone'>,
  req: Pick<RequestEntity, 'filename' | 'expiresAt'>,
  party: Pick<PartyEntity, 'name' | 'language'>,
  signUrl: string,
) => ({
  orgName: org.name,
  partyName: party.name,
  filename: req.filename,
  signUrl,
  expiresAt: req.expiresAt,
  timeZone: org.timeZone,
  language: party.language,
});

/**
 * What follows a request's state changes besides the rows themselves: messages (email and SMS through the outbox),
 * webhook deliveries and scheduled jobs. Everything goes through the caller's EntityManager, so it commits or rolls
 * back with the change.
 */
@Injectable()
export class RequestEvents {
  private readonly log = new Logger('RequestEvents');

  constructor(
    private readonly jobs: JobsService,
    private readonly notifications: NotificationsService,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
  ) {}

  async invited(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    signUrl: string,
    resend: boolean,
  ): Promise<void> {
    const message = Templates.invitation(linkMessage(org, req, party, signUrl));
    await this.send(manager, req, party, 'invitation', message);
    await this.webhooks.emit(manager, req.orgId, 'party.invited', { ...partyData(req, party), resend });
  }

  async reminded(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    signUrl: string,
  ): Promise<void> {
    const message = Templates.reminder(linkMessage(org, req, party, signUrl));
    await this.send(manager, req, party, 'reminder', message);
    await this.webhooks.emit(manager, req.orgId, 'party.reminded', partyData(req, party));
  }

  async submitted(manager: EntityManager, org: OrganisationEntity, req: RequestEntity, parties: PartyEntity[]) {
    await this.webhooks.emit(manager, req.orgId, 'request.submitted', {
      ...requestData(req),
      parties: parties.map((p) => partyData(req, p)),
    });
    await this.scheduleReminder(manager, req, this.clock.now());
    await this.scheduleExpiry(manager, req);
  }

  async expired(manager: EntityManager, org: OrganisationEntity, req: RequestEntity, pending: PartyEntity[]) {
    for (const p of pending) {
      await this.send(
        manager,
        req,
        p,
        'expired',
        Templates.expired({
          orgName: org.name,
          partyName: p.name,
          filename: req.filename,
          timeZone: org.timeZone,
          language: p.language,
        }),
      );
    }
    await this.webhooks.emit(manager, req.orgId, 'request.expired', requestData(req));
  }

  /**
   * The sender cancelled the request: the parties told by e-mail (in their language), and the `request.cancelled`
   * webhook.
   */
  async cancelled(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    told: PartyEntity[],
    reason: string | null,
  ): Promise<void> {
    for (const p of told) {
      const message = Templates.cancelled({
        orgName: org.name,
        partyName: p.name,
        filename: req.filename,
        reason,
        timeZone: org.timeZone,
        language: p.language,
      });
      await this.notifications.queueBuilt(
        manager,
        { orgId: req.orgId, refId: req.refId, partyOrder: p.order, kind: 'cancelled', email: p.email },
        message,
      );
    }
    await this.webhooks.emit(manager, req.orgId, 'request.cancelled', { ...requestData(req), reason });
  }

  /**
   * The OTP by SMS to the phone and by e-mail (DESIGN.md section 3); the code itself is never logged. `language`: the
   * signing page's (issue 22), else the party's.
   */
  async otp(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    code: string,
    language?: RecipientLanguage | null,
  ): Promise<void> {
    const message = Templates.otp({
      orgName: org.name,
      partyName: party.name,
      filename: req.filename,
      code,
      timeZone: org.timeZone,
      language: language ?? party.language,
    });
    await this.send(manager, req, party, 'otp', message);
  }

  async opened(manager: EntityManager, req: RequestEntity, party: PartyEntity): Promise<void> {
    await this.webhooks.emit(manager, req.orgId, 'party.opened', partyData(req, party));
  }

  async signed(manager: EntityManager, req: RequestEntity, party: PartyEntity): Promise<void> {
    const fields = filledFields([party]);
    await this.webhooks.emit(manager, req.orgId, 'party.signed', {
      ...partyData(req, party),
      signedAt: party.signedAt?.toISOString() ?? null,
      ...(fields.length ? { fields } : {}),
    });
  }

  /**
   * Everyone else who was invited hears of the rejection (who, when, why), and so does the staff user who sent the
   * request when they have an e-mail address; the webhooks carry the remark and the time. Answers what happened about
   * the sender, for the audit event.
   */
  async rejected(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    others: PartyEntity[],
  ): Promise<SenderNotice> {
    const rejectedAt = party.rejectedAt ?? this.clock.now();
    const common = {
      orgName: org.name,
      filename: req.filename,
      rejectedBy: party.name,
      remark: party.rejectRemark,
      rejectedAt,
      timeZone: org.timeZone,
      refId: req.refId,
    };
    for (const p of others)
      await this.send(
        manager,
        req,
        p,
        'rejected',
        Templates.rejected({ ...common, partyName: p.name, language: p.language }),
      );

    const notice = await this.tellSender(manager, req, party, common);
    const rejection = { remark: party.rejectRemark, rejectedAt: rejectedAt.toISOString() };
    await this.webhooks.emit(manager, req.orgId, 'party.rejected', { ...partyData(req, party), ...rejection });
    await this.webhooks.emit(manager, req.orgId, 'request.rejected', {
      ...requestData(req),
      rejectedBy: { order: party.order, name: party.name, email: party.email },
      ...rejection,
    });
    return notice;
  }

  /** The e-mail to the sender (`requests.created_by`: a staff user's id, or an organisation API key's). */
  private async tellSender(
    manager: EntityManager,
    req: RequestEntity,
    party: PartyEntity,
    common: Omit<Templates.RejectedInput, 'partyName'>,
  ): Promise<SenderNotice> {
    const user = await manager.findOne(UserEntity, { where: { id: req.createdBy, orgId: req.orgId } });
    const notice: SenderNotice = !user
      ? { senderNotified: false, senderReason: 'sent with an organisation API key' }
      : user.disabled
        ? { senderNotified: false, senderReason: 'user disabled' }
        : !user.email
          ? { senderNotified: false, senderReason: 'no e-mail address' }
          : { senderNotified: true };
    if (!user || !notice.senderNotified) {
      this.log.log(`request ${req.refId} rejected: the sender is not told by e-mail (${notice.senderReason})`);
      return notice;
    }
    const message = Templates.rejectedToSender({
      ...common,
      partyName: user.username,
      rejectedByEmail: party.email,
      rejectedByOrder: party.order,
    });
    await this.notifications.queueBuilt(
      manager,
      { orgId: req.orgId, refId: req.refId, partyOrder: null, kind: 'rejected', email: user.email },
      message,
    );
    return notice;
  }

  async failed(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    party: PartyEntity,
    reason: string,
    sendEmail: boolean,
  ): Promise<void> {
    if (sendEmail) {
      const message = Templates.failed({
        orgName: org.name,
        partyName: party.name,
        filename: req.filename,
        reason,
        timeZone: org.timeZone,
        language: party.language,
      });
      await this.notifications.queueBuilt(
        manager,
        { orgId: req.orgId, refId: req.refId, partyOrder: party.order, kind: 'failed', email: party.email },
        message,
      );
    }
    await this.webhooks.emit(manager, req.orgId, 'party.failed', { ...partyData(req, party), reason });
  }

  /** Every party (signers and copy-receivers) gets the completed document's link. */
  async completed(
    manager: EntityManager,
    org: OrganisationEntity,
    req: RequestEntity,
    parties: PartyEntity[],
    downloadUrl: string,
  ): Promise<void> {
    for (const p of parties) {
      const message = Templates.completed({
        orgName: org.name,
        partyName: p.name,
        filename: req.filename,
        downloadUrl,
        timeZone: org.timeZone,
        language: p.language,
      });
      await this.send(manager, req, p, 'completed', message);
    }
    const fields = filledFields(parties);
    await this.webhooks.emit(manager, req.orgId, 'request.completed', {
      ...requestData(req),
      ...(fields.length ? { fields } : {}),
    });
  }

  async deleted(manager: EntityManager, req: RequestEntity): Promise<void> {
    await this.webhooks.emit(manager, req.orgId, 'request.deleted', requestData(req));
  }

  /** The next reminder, `reminderDuration` hours after `from`, while reminders are on. */
  async scheduleReminder(manager: EntityManager, req: RequestEntity, from: Date): Promise<void> {
    if (!req.reminder || !req.reminderDuration) return;
    const runAt = new Date(from.getTime() + req.reminderDuration * 3_600_000);
    if (req.expiresAt && runAt >= req.expiresAt) return;
    // No dedupe key: each reminder schedules the next one from inside its own job; a reminder or expiry job that
    // finds its request no longer in progress (completed, cancelled, expired) does nothing.
    await this.jobs.enqueue(manager, {
      type: REMIND_JOB,
      payload: { orgId: req.orgId, refId: req.refId },
      runAt,
      orgId: req.orgId,
    });
  }

  async scheduleExpiry(manager: EntityManager, req: RequestEntity): Promise<void> {
    if (!req.expiresAt) return;
    await this.jobs.enqueue(manager, {
      type: EXPIRE_JOB,
      payload: { orgId: req.orgId, refId: req.refId },
      runAt: req.expiresAt,
      orgId: req.orgId,
    });
  }

  private async send(
    manager: EntityManager,
    req: RequestEntity,
    party: PartyEntity,
    kind: 'invitation' | 'reminder' | 'expired' | 'otp' | 'rejected' | 'completed',
    message: { subject: string; text: string; html: string; sms: string },
  ): Promise<void> {
    const base = { orgId: req.orgId, refId: req.refId, partyOrder: party.order, kind };
    // An address erased at the signer's request (issue 24) is empty: that channel is skipped, never the change.
    if (party.email)
      await this.notifications.queue(manager, {
        ...base,
        channel: 'email',
        to: party.email,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    if (party.phoneNumber)
      await this.notifications.queue(manager, { ...base, channel: 'sms', to: party.phoneNumber, text: message.sms });
  }
}
