import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DscMessages, Limits, dscIdentifierOf } from '@esign/contract';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, In } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { NotificationsService } from '../notifications/notifications.service';
import { OtpService } from '../otp/otp.service';
import { PartyEntity } from '../requests/party.entity';
import { DscAgentSessionEntity } from './dsc-agent-session.entity';

const TOKEN_HOURS = 12;
const LIVE: PartyEntity['status'][] = ['in-progress', 'opened', 'signing', 'failed'];

/** A lower-case e-mail, or an Indian mobile as +91 and 10 digits; null when it is neither (the contract's rule). */
export const normaliseIdentifier = dscIdentifierOf;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The desktop signer agent's login (DESIGN.md section 5): the signer gives the e-mail or phone of the request, gets an
 * OTP there, and the agent gets a bearer token for its WebSocket. Nobody learns whether an address has a request: the
 * answer is the same, and the OTP goes only to an address that has one. The OTP is the OTP service's `dsc-login`
 * purpose: 10 minutes, 5 attempts, a new one no sooner than 30 s after the last, no hourly limit, and an older code
 * stays valid when a newer one is sent.
 */
@Injectable()
export class DscLoginService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly notifications: NotificationsService,
    private readonly otps: OtpService,
  ) {}

  /** `identifier`: normalised by the contract's dscLoginSchema. */
  async login(identifier: string): Promise<{ code: 200; loginId: string; message: string }> {
    // No hourly limit for the agent's login (OTP_POLICIES): only the resend interval, answered as it always was.
    if (!(await this.otps.mayIssue(this.db.manager, 'dsc-login', identifier)).allowed)
      throw new AppError('TOO_MANY_ATTEMPTS', DscMessages.wait, { 'Retry-After': String(Limits.otpResendSeconds) });
    const party = await this.db.manager.findOne(PartyEntity, {
      where: [
        { email: identifier, status: In(LIVE), observer: false },
        { phoneNumber: identifier, status: In(LIVE), observer: false },
      ],
      order: { updatedAt: 'DESC' },
    });
    // Without a request for that address no OTP is sent, and none can match.
    const otp = await this.otps.create('dsc-login', party !== null);
    await this.db.transaction(async (manager) => {
      await this.otps.save(manager, otp, identifier);
      if (party) {
        const text = `${otp.code} is your OTP to log in to the e-Sign signer app. It is valid for 10 minutes. Do not share it.`;
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
    return { code: 200, loginId: otp.id, message: DscMessages.sent };
  }

  /** `id` and `otp`: as the contract's dscVerifySchema gives them. */
  async verify(id: string, otp: string): Promise<{ code: 200; agentToken: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const check = await this.otps.verify('dsc-login', id, otp, {
      onVerified: async (manager, row) => {
        const expiresAt = new Date(row.verifiedAt.getTime() + TOKEN_HOURS * 3_600_000);
        await manager.insert(DscAgentSessionEntity, {
          id: row.id,
          identifier: row.subject,
          tokenHash: sha256(token),
          createdAt: row.verifiedAt,
          expiresAt,
        });
        return expiresAt;
      },
    });
    if (check.outcome === 'expired') throw new AppError('VALIDATION_FAILED', DscMessages.otpExpired);
    if (check.outcome === 'locked') throw new AppError('TOO_MANY_ATTEMPTS', DscMessages.tooMany);
    // Unknown, already used or wrong: the same answer.
    if (check.outcome !== 'verified') throw new AppError('VALIDATION_FAILED', DscMessages.otpInvalid);
    return { code: 200, agentToken: token, expiresAt: check.value.toISOString() };
  }

  /** The identifier an agent's bearer token logged in with, while it is valid. */
  async identifierFor(token: string): Promise<string | null> {
    const session = await this.db.manager.findOneBy(DscAgentSessionEntity, { tokenHash: sha256(token) });
    if (!session || session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return session.identifier;
  }
}
