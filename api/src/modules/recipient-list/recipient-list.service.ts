import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  Messages,
  RecipientListMessages,
  normaliseRecipientIdentifier,
  type PartyStatus,
  type RecipientListItem,
  type RecipientListResponse,
  type RecipientLoginResponse,
  type RecipientVerifyResponse,
  type RequestStatus,
} from '@esign/contract';
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { DataSource, LessThan, MoreThan } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { safeEqual } from '../auth/secrets';
import { NotificationsService } from '../notifications/notifications.service';
import { recipientListOtp } from '../notifications/templates';
import { PartyEntity } from '../requests/party.entity';
import { AppSecretService } from '../secrets/app-secret.service';
import { LinksService } from '../secrets/links.service';
import { RecipientListLoginEntity } from './recipient-list-login.entity';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A party may still act on these (with the request in progress): the list gives them their sign link. */
const ACTIONABLE: readonly PartyStatus[] = ['in-progress', 'opened', 'signing', 'failed'];

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError('TOO_MANY_ATTEMPTS', message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** One row of the list query: the party, its request and its organisation. */
interface ListRow {
  ref_id: number | string;
  party_order: number | string;
  observer: number | boolean | string;
  status: PartyStatus;
  token_nonce: string | null;
  filename: string;
  request_status: RequestStatus;
  submitted_at: Date | string | null;
  created_at: Date | string;
  org_id: string;
  org_name: string;
  time_zone: string;
}

const iso = (value: Date | string | null): string | null => {
  if (value === null) return null;
  // SQLite answers the datetime(3) text as stored (UTC, without a zone); MySQL a Date.
  const date = value instanceof Date ? value : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
};

/**
 * /list, the recipient's own list (issue 18, point 13): an e-mail address or Indian phone number, a 6-digit OTP sent
 * there (only an HMAC kept, 10 minutes, 5 attempts, a new one no sooner than 30 s and at most 5 an hour per address,
 * at most Limits.recipientListOtpsPerIpPerHour per network address), then a random list token (256 bits, its SHA-256
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
    private readonly secrets: AppSecretService,
    private readonly links: LinksService,
  ) {}

  private async otpHash(id: string, otp: string): Promise<string> {
    return (await this.secrets.hmac('recipient-list-otp', `${id}:${otp}`)).toString('hex');
  }

  async login(identifierValue: unknown, ip: string | null): Promise<RecipientLoginResponse> {
    const identifier = normaliseRecipientIdentifier(identifierValue);
    if (!identifier) throw new AppError('VALIDATION_FAILED', RecipientListMessages.identifierInvalid);
    const now = this.clock.now();
    const hourAgo = new Date(now.getTime() - HOUR_MS);
    const logins = this.db.getRepository(RecipientListLoginEntity);
    await logins.delete({ createdAt: LessThan(new Date(now.getTime() - DAY_MS)) });

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
    const recent = await logins.find({
      where: { identifier, createdAt: MoreThan(hourAgo) },
      order: { createdAt: 'DESC' },
      select: { id: true, createdAt: true },
    });
    const wait = recent.length
      ? (recent[0].createdAt.getTime() + Limits.otpResendSeconds * 1000 - now.getTime()) / 1000
      : 0;
    if (wait > 0) throw tooMany(RecipientListMessages.resendWait.replace('{seconds}', String(Math.ceil(wait))), wait);
    if (recent.length >= Limits.otpMaxSendsPerHour)
      throw tooMany(
        RecipientListMessages.tooManySends,
        (recent[recent.length - 1].createdAt.getTime() + HOUR_MS - now.getTime()) / 1000,
      );

    const party = await this.latestParty(identifier);
    const id = randomUUID();
    const otp = String(randomInt(0, 1_000_000)).padStart(Limits.otpLength, '0');
    // Without a request for that address no OTP is sent, and none can match. Hashed before the transaction: the
    // secret may be read (or made) through another connection.
    const otpHash = party ? await this.otpHash(id, otp) : sha256(randomBytes(32).toString('hex'));
    await this.db.transaction(async (manager) => {
      await manager.insert(RecipientListLoginEntity, {
        id,
        identifier,
        ip: ip?.slice(0, 64) ?? null,
        otpHash,
        otpAttempts: 0,
        otpExpiresAt: new Date(now.getTime() + Limits.otpValiditySeconds * 1000),
        tokenHash: null,
        tokenExpiresAt: null,
        createdAt: now,
      });
      if (party)
        await this.notifications.queueBuilt(
          manager,
          {
            orgId: party.orgId,
            kind: 'otp',
            ...(identifier.includes('@') ? { email: identifier } : { phone: identifier }),
          },
          recipientListOtp({ code: otp }),
        );
    });
    return {
      code: 200,
      id,
      message: RecipientListMessages.otpSent,
      resend_after: Limits.otpResendSeconds,
      expires_in: Limits.otpValiditySeconds,
    };
  }

  async verify(idValue: unknown, otpValue: unknown): Promise<RecipientVerifyResponse> {
    const id = typeof idValue === 'string' ? idValue.trim().toLowerCase() : '';
    const otp = typeof otpValue === 'string' ? otpValue.trim() : typeof otpValue === 'number' ? String(otpValue) : '';
    if (!/^\d{6}$/.test(otp)) throw new AppError('VALIDATION_FAILED', RecipientListMessages.otpFormat);
    const logins = this.db.getRepository(RecipientListLoginEntity);
    const login = UUID.test(id) ? await logins.findOneBy({ id }) : null;
    if (!login || login.tokenHash) throw new AppError('VALIDATION_FAILED', RecipientListMessages.loginUnknown);
    const now = this.clock.now();
    const latest = await logins.findOne({
      where: { identifier: login.identifier },
      order: { createdAt: 'DESC' },
      select: { id: true },
    });
    // A newer OTP for the same address replaces this one.
    if (login.otpExpiresAt.getTime() <= now.getTime() || latest?.id !== login.id)
      throw new AppError('VALIDATION_FAILED', Messages.otpExpired, {}, { expired: true });
    const taken = await this.db
      .createQueryBuilder()
      .update(RecipientListLoginEntity)
      .set({ otpAttempts: () => 'otp_attempts + 1' })
      .where('id = :id AND otp_attempts < :max AND token_hash IS NULL', { id, max: Limits.otpMaxVerifyAttempts })
      .execute();
    if (!taken.affected) throw new AppError('TOO_MANY_ATTEMPTS', RecipientListMessages.tooManyAttempts);
    if (!safeEqual(await this.otpHash(id, otp), login.otpHash))
      throw new AppError(
        'VALIDATION_FAILED',
        Messages.otpInvalid,
        {},
        { attempts_left: Math.max(0, Limits.otpMaxVerifyAttempts - login.otpAttempts - 1) },
      );
    const token = randomBytes(32).toString('base64url');
    const tokenExpiresAt = new Date(now.getTime() + Limits.recipientListSessionSeconds * 1000);
    const done = await this.db
      .createQueryBuilder()
      .update(RecipientListLoginEntity)
      .set({ tokenHash: sha256(token), tokenExpiresAt })
      .where('id = :id AND token_hash IS NULL', { id })
      .execute();
    if (!done.affected) throw new AppError('VALIDATION_FAILED', RecipientListMessages.loginUnknown);
    return { code: 200, token, expires_at: tokenExpiresAt.toISOString() };
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
    const rows: ListRow[] = await this.matching(login.identifier)
      .innerJoin('organisations', 'o', 'o.id = p.org_id')
      .select([
        'p.ref_id AS ref_id',
        'p.party_order AS party_order',
        'p.observer AS observer',
        'p.status AS status',
        'p.token_nonce AS token_nonce',
        'r.filename AS filename',
        'r.status AS request_status',
        'r.submitted_at AS submitted_at',
        'r.created_at AS created_at',
        'o.id AS org_id',
        'o.name AS org_name',
        'o.time_zone AS time_zone',
      ])
      .orderBy('r.submitted_at', 'DESC')
      .addOrderBy('r.created_at', 'DESC')
      .addOrderBy('p.ref_id', 'DESC')
      .addOrderBy('p.party_order', 'ASC')
      .limit(Limits.recipientListMaxRows)
      .getRawMany();
    const requests = await Promise.all(rows.map((row) => this.item(row)));
    return { code: 200, identifier: login.identifier, expires_at: login.tokenExpiresAt.toISOString(), requests };
  }

  private async item(row: ListRow): Promise<RecipientListItem> {
    const observer = row.observer === true || row.observer === 1 || row.observer === '1';
    const refId = Number(row.ref_id);
    const order = Number(row.party_order);
    const mayAct = row.request_status === 'in-progress' && !observer && ACTIONABLE.includes(row.status);
    return {
      ref_id: refId,
      order,
      filename: row.filename,
      organisation: row.org_name,
      sent_at: iso(row.submitted_at),
      time_zone: row.time_zone,
      role: observer ? 'copy' : 'signer',
      status: row.status,
      request_status: row.request_status,
      // The party's current nonce: the link of its (latest) invitation, never a new one.
      sign_url: mayAct ? await this.links.signUrl(row.org_id, refId, order, row.token_nonce) : null,
    };
  }

  /** Parties with this address on sent requests (drafts are nobody's business yet). */
  private matching(identifier: string) {
    const qb = this.db
      .createQueryBuilder()
      .from(PartyEntity, 'p')
      .innerJoin('requests', 'r', 'r.ref_id = p.ref_id AND r.org_id = p.org_id')
      .where('r.is_draft = :draft', { draft: false });
    return identifier.includes('@')
      ? qb.andWhere('LOWER(p.email) = :identifier', { identifier })
      : qb.andWhere('p.phone_number = :identifier', { identifier });
  }

  /** The organisation the OTP message is filed under: that of the latest request to the address. */
  private async latestParty(identifier: string): Promise<{ orgId: string } | null> {
    const row = await this.matching(identifier)
      .select('p.org_id', 'orgId')
      .orderBy('r.created_at', 'DESC')
      .limit(1)
      .getRawOne<{ orgId: string }>();
    return row ?? null;
  }
}
