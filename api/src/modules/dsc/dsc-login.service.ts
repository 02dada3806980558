import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Limits } from '@esign/contract';
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { DataSource, In, MoreThan } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { NotificationsService } from '../notifications/notifications.service';
import { PartyEntity } from '../requests/party.entity';
import { AppSecretService } from '../secrets/app-secret.service';
import { DscAgentSessionEntity } from './dsc-agent-session.entity';

const TOKEN_HOURS = 12;
const OTP_ATTEMPTS = 5;
const LIVE: PartyEntity['status'][] = ['in-progress', 'opened', 'signing', 'failed'];

export const DscMessages = {
  identifier: 'Enter the e-mail address or the phone number the signing request was sent to.',
  sent: 'If a signing request is waiting for you, an OTP was sent there.',
  wait: 'Please wait 30 seconds before asking for another OTP.',
  otpInvalid: 'Invalid OTP',
  otpExpired: 'OTP Expired',
  tooMany: 'Too many wrong OTPs. Ask for a new one.',
} as const;

/** A lower-case e-mail, or an Indian mobile as +91 and 10 digits; null when it is neither. */
export function normaliseIdentifier(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254) return text.toLowerCase();
  const digits = text.replace(/[\s()-]/g, '').replace(/^\+?91/, '');
  return /^[6-9]\d{9}$/.test(digits) ? `+91${digits}` : null;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The desktop signer agent's login (DESIGN.md section 5): the signer gives the e-mail or phone of the request, gets an
 * OTP there, and the agent gets a bearer token for its WebSocket. Nobody learns whether an address has a request: the
 * answer is the same, and the OTP goes only to an address that has one.
 */
@Injectable()
export class DscLoginService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly notifications: NotificationsService,
    private readonly secrets: AppSecretService,
  ) {}

  /** Keyed with the application's secret, as the signing OTPs are. */
  private async otpHash(id: string, otp: string): Promise<string> {
    return (await this.secrets.hmac('dsc-agent-otp', `${id}:${otp}`)).toString('hex');
  }

  async login(identifierValue: unknown): Promise<{ code: 200; loginId: string; message: string }> {
    const identifier = normaliseIdentifier(identifierValue);
    if (!identifier) throw new AppError('VALIDATION_FAILED', DscMessages.identifier);
    const now = this.clock.now();
    const recent = await this.db.manager.findOne(DscAgentSessionEntity, {
      where: { identifier, createdAt: MoreThan(new Date(now.getTime() - Limits.otpResendSeconds * 1000)) },
    });
    if (recent)
      throw new AppError('TOO_MANY_ATTEMPTS', DscMessages.wait, { 'Retry-After': String(Limits.otpResendSeconds) });
    const id = randomUUID();
    const otp = String(randomInt(0, 1_000_000)).padStart(Limits.otpLength, '0');
    const party = await this.db.manager.findOne(PartyEntity, {
      where: [
        { email: identifier, status: In(LIVE), observer: false },
        { phoneNumber: identifier, status: In(LIVE), observer: false },
      ],
      order: { updatedAt: 'DESC' },
    });
    // Hashed before the transaction: the secret may be read (or made) through another connection.
    const otpHash = party ? await this.otpHash(id, otp) : sha256(randomBytes(32).toString('hex'));
    await this.db.transaction(async (manager) => {
      await manager.insert(DscAgentSessionEntity, {
        id,
        identifier,
        // Without a request for that address no OTP is sent, and none can match.
        otpHash,
        otpAttempts: 0,
        tokenHash: null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + Limits.otpValiditySeconds * 1000),
      });
      if (party) {
        const text = `${otp} is your OTP to log in to the e-Sign signer app. It is valid for 10 minutes. Do not share it.`;
        await this.notifications.queueBuilt(
          manager,
          {
            orgId: party.orgId,
            refId: party.refId,
            partyOrder: party.order,
            kind: 'otp',
            ...(identifier.includes('@') ? { email: identifier } : { phone: identifier }),
          },
          { subject: 'Your e-Sign signer app OTP', text, html: text, sms: text },
        );
      }
    });
    return { code: 200, loginId: id, message: DscMessages.sent };
  }

  async verify(loginId: unknown, otpValue: unknown): Promise<{ code: 200; agentToken: string; expiresAt: string }> {
    const otp = typeof otpValue === 'string' ? otpValue.trim() : '';
    const id = typeof loginId === 'string' ? loginId : '';
    const session = /^[0-9a-f-]{36}$/.test(id) ? await this.db.manager.findOneBy(DscAgentSessionEntity, { id }) : null;
    if (!session || !/^\d{6}$/.test(otp) || session.tokenHash)
      throw new AppError('VALIDATION_FAILED', DscMessages.otpInvalid);
    const now = this.clock.now();
    if (session.expiresAt.getTime() <= now.getTime()) throw new AppError('VALIDATION_FAILED', DscMessages.otpExpired);
    const taken = await this.db.manager
      .createQueryBuilder()
      .update(DscAgentSessionEntity)
      .set({ otpAttempts: () => 'otp_attempts + 1' })
      .where('id = :id AND otp_attempts < :max AND token_hash IS NULL', { id, max: OTP_ATTEMPTS })
      .execute();
    if (!taken.affected) throw new AppError('TOO_MANY_ATTEMPTS', DscMessages.tooMany);
    if (!timingSafeEqual(Buffer.from(session.otpHash, 'hex'), Buffer.from(await this.otpHash(id, otp), 'hex')))
      throw new AppError('VALIDATION_FAILED', DscMessages.otpInvalid);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + TOKEN_HOURS * 3_600_000);
    await this.db.manager.update(DscAgentSessionEntity, { id }, { tokenHash: sha256(token), expiresAt });
    return { code: 200, agentToken: token, expiresAt: expiresAt.toISOString() };
  }

  /** The identifier an agent's bearer token logged in with, while it is valid. */
  async identifierFor(token: string): Promise<string | null> {
    const session = await this.db.manager.findOneBy(DscAgentSessionEntity, { tokenHash: sha256(token) });
    if (!session || session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return session.identifier;
  }
}
