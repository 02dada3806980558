import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  Messages,
  RecipientListMessages,
  type PartyStatus,
  type RecipientListItem,
  type RecipientListResponse,
  type RecipientLoginResponse,
  type RecipientVerifyResponse,
} from '@esign/contract';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, In, LessThan, MoreThan, Raw } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { NotificationsService } from '../notifications/notifications.service';
import { recipientListOtp } from '../notifications/templates';
import { OrganisationEntity } from '../organisations/organisation.entity';
import { OtpService, otpSendRefused } from '../otp/otp.service';
import { PartyEntity } from '../requests/party.entity';
import { RequestEntity } from '../requests/request.entity';
import { LinksService } from '../secrets/links.service';
import { RecipientListLoginEntity } from './recipient-list-login.entity';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A party may still act on these (with the request in progress): the list gives them their sign link. */
const ACTIONABLE: readonly PartyStatus[] = ['in-progress', 'opened', 'signing', 'failed'];

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError('TOO_MANY_ATTEMPTS', message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

type MatchedParty = Pick<PartyEntity, 'id' | 'orgId' | 'refId' | 'order' | 'observer' | 'status' | 'tokenNonce'>;
type SentRequest = Pick<RequestEntity, 'refId' | 'orgId' | 'filename' | 'status' | 'submittedAt' | 'createdAt'>;

/**
 * /list, the recipient's own list (issue 18, point 13): an e-mail address or Indian phone number, a 6-digit OTP sent
 * there (the OTP service's `recipient-list` purpose: only an HMAC kept, 10 minutes, 5 attempts, a new one no sooner
 * than 30 s and at most 5 an hour per address, a newer one replacing the older; and here at most
 * Limits.recipientListOtpsPerIpPerHour per network address), then a random list token (256 bits, its SHA-256
 * kept, Limits.recipientListSessionSeconds) that reads the requests addressed to that address across organisations.
 * Nobody learns whether an address has requests: the answers are the same, and the OTP goes only to an address that
 * has some. The list shows the party's own row only (file, organisation, time, status) and the party's own sign link,
 * made from its current nonce: the very link its invitation carried.
 */
@Injectable()
export class RecipientListService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly notifications: NotificationsService,
    private readonly otps: OtpService,
    private readonly links: LinksService,
  ) {}

  /** `identifier`: normalised by the contract's recipientLoginSchema. */
  async login(identifier: string, ip: string | null): Promise<RecipientLoginResponse> {
    const now = this.clock.now();
    const hourAgo = new Date(now.getTime() - HOUR_MS);
    const logins = this.db.getRepository(RecipientListLoginEntity);
    const dayAgo = new Date(now.getTime() - DAY_MS);
    await logins.delete({ createdAt: LessThan(dayAgo) });
    await this.otps.forget(this.db.manager, 'recipient-list', dayAgo);

    if (ip) {
      const fromIp = await logins.find({
        where: { ip, createdAt: MoreThan(hourAgo) },
        order: { createdAt: 'ASC' },
        select: { id: true, createdAt: true },
      });
      if (fromIp.length >= Limits.recipientListOtpsPerIpPerHour)
        throw tooMany(
          RecipientListMessages.tooManyFromNetwork,
          (fromIp[0].createdAt.getTime() + HOUR_MS - now.getTime()) / 1000,
        );
    }
    const check = await this.otps.mayIssue(this.db.manager, 'recipient-list', identifier);
    if (!check.allowed)
      throw otpSendRefused(check, {
        resendWait: RecipientListMessages.resendWait,
        tooManySends: RecipientListMessages.tooManySends,
      });

    const party = await this.latestParty(identifier);
    // Without a request for that address no OTP is sent, and none can match.
    const otp = await this.otps.create('recipient-list', party !== null);
    await this.db.transaction(async (manager) => {
      await manager.insert(RecipientListLoginEntity, {
        id: otp.id,
        identifier,
        ip: ip?.slice(0, 64) ?? null,
        tokenHash: null,
        tokenExpiresAt: null,
        createdAt: now,
      });
      await this.otps.save(manager, otp, identifier);
      if (party)
        await this.notifications.queueBuilt(
          manager,
          {
            orgId: party.orgId,
            kind: 'otp',
            ...(identifier.includes('@') ? { email: identifier } : { phone: identifier }),
          },
          recipientListOtp({ code: otp.code }),
        );
    });
    return {
      code: 200,
      id: otp.id,
      message: RecipientListMessages.otpSent,
      resend_after: Limits.otpResendSeconds,
      expires_in: Limits.otpValiditySeconds,
    };
  }

  /** `id` and `otp`: as the contract's recipientVerifySchema gives them. */
  async verify(id: string, otp: string): Promise<RecipientVerifyResponse> {
    const token = randomBytes(32).toString('base64url');
    const check = await this.otps.verify('recipient-list', id, otp, {
      onVerified: async (manager, row) => {
        const tokenExpiresAt = new Date(row.verifiedAt.getTime() + Limits.recipientListSessionSeconds * 1000);
        const done = await manager
          .createQueryBuilder()
          .update(RecipientListLoginEntity)
          .set({ tokenHash: sha256(token), tokenExpiresAt })
          .where('id = :id AND token_hash IS NULL', { id: row.id })
          .execute();
        if (!done.affected) throw new AppError('VALIDATION_FAILED', RecipientListMessages.loginUnknown);
        return tokenExpiresAt;
      },
    });
    switch (check.outcome) {
      case 'unknown':
      case 'used':
        throw new AppError('VALIDATION_FAILED', RecipientListMessages.loginUnknown);
      // Out of time, or a newer OTP for the same address replaced this one.
      case 'expired':
        throw new AppError('VALIDATION_FAILED', Messages.otpExpired, {}, { expired: true });
      case 'locked':
        throw new AppError('TOO_MANY_ATTEMPTS', RecipientListMessages.tooManyAttempts);
      case 'wrong':
        throw new AppError('VALIDATION_FAILED', Messages.otpInvalid, {}, { attempts_left: check.attemptsLeft });
      case 'verified':
        return { code: 200, token, expires_at: check.value.toISOString() };
    }
  }

  /** The requests addressed to the token's address, newest first: the party's own view of each. */
  async requests(authorization: unknown): Promise<RecipientListResponse> {
    const token =
      typeof authorization === 'string' ? /^Bearer ([A-Za-z0-9_-]{43})$/.exec(authorization.trim())?.[1] : undefined;
    const login = token
      ? await this.db.getRepository(RecipientListLoginEntity).findOneBy({ tokenHash: sha256(token) })
      : null;
    if (!login?.tokenExpiresAt || login.tokenExpiresAt.getTime() <= this.clock.now().getTime())
      throw new AppError('SESSION_EXPIRED', RecipientListMessages.sessionInvalid);
    const parties = await this.partiesWith(login.identifier);
    const sent = await this.sentRequests(parties.map((p) => p.refId));
    const orgs = sent.length
      ? await this.db.getRepository(OrganisationEntity).find({
          where: { id: In([...new Set(sent.map((r) => r.orgId))]) },
          select: { id: true, name: true, timeZone: true },
        })
      : [];
    const requestOf = new Map(sent.map((r) => [`${r.orgId}:${r.refId}`, r]));
    const orgOf = new Map(orgs.map((o) => [o.id, o]));
    const rows: { party: MatchedParty; req: SentRequest; org: Pick<OrganisationEntity, 'name' | 'timeZone'> }[] = [];
    for (const party of parties) {
      const req = requestOf.get(`${party.orgId}:${party.refId}`);
      const org = req && orgOf.get(req.orgId);
      if (req && org) rows.push({ party, req, org });
    }
    // Newest first (the time it was sent), then by Ref ID and the party's order.
    rows.sort(
      (a, b) =>
        (b.req.submittedAt ?? b.req.createdAt).getTime() - (a.req.submittedAt ?? a.req.createdAt).getTime() ||
        b.req.refId - a.req.refId ||
        a.party.order - b.party.order,
    );
    const requests = await Promise.all(rows.slice(0, Limits.recipientListMaxRows).map((row) => this.item(row)));
    return { code: 200, identifier: login.identifier, expires_at: login.tokenExpiresAt.toISOString(), requests };
  }

  private async item({
    party,
    req,
    org,
  }: {
    party: MatchedParty;
    req: SentRequest;
    org: Pick<OrganisationEntity, 'name' | 'timeZone'>;
  }): Promise<RecipientListItem> {
    const mayAct = req.status === 'in-progress' && !party.observer && ACTIONABLE.includes(party.status);
    return {
      ref_id: req.refId,
      order: party.order,
      filename: req.filename,
      organisation: org.name,
      sent_at: req.submittedAt?.toISOString() ?? null,
      time_zone: org.timeZone,
      role: party.observer ? 'copy' : 'signer',
      status: party.status,
      request_status: req.status,
      // The party's current nonce: the link of its (latest) invitation, never a new one.
      sign_url: mayAct ? await this.links.signUrl(req.orgId, req.refId, party.order, party.tokenNonce) : null,
    };
  }

  /**
   * The parties with this address, on any request. One scan of the parties (no index holds the address), whether or
   * not any matches: an address with requests is not answered sooner than one without.
   */
  private partiesWith(identifier: string): Promise<MatchedParty[]> {
    return this.db.getRepository(PartyEntity).find({
      select: { id: true, orgId: true, refId: true, order: true, observer: true, status: true, tokenNonce: true },
      where: identifier.includes('@')
        ? // Addresses are kept as typed: compared without case (ASCII, as SQLite's LOWER and MySQL's collations do).
          { email: Raw((column) => `LOWER(${column}) = :identifier`, { identifier }) }
        : { phoneNumber: identifier },
    });
  }

  /** Those of these requests that were sent (drafts are nobody's business yet). */
  private async sentRequests(refIds: number[]): Promise<SentRequest[]> {
    if (!refIds.length) return [];
    return this.db.getRepository(RequestEntity).find({
      select: {
        refId: true,
        orgId: true,
        filename: true,
        status: true,
        submittedAt: true,
        createdAt: true,
      },
      where: { refId: In([...new Set(refIds)]), isDraft: false },
    });
  }

  /** The organisation the OTP message is filed under: that of the latest sent request to the address. */
  private async latestParty(identifier: string): Promise<{ orgId: string } | null> {
    const sent = await this.sentRequests((await this.partiesWith(identifier)).map((p) => p.refId));
    sent.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return sent[0] ? { orgId: sent[0].orgId } : null;
  }
}
