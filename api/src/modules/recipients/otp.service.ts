import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  Messages,
  RecipientMessages,
  type PendingOtp,
  type SendOtpResponse,
  type VerifyOtpResponse,
} from '@esign/contract';
import { randomInt, randomUUID } from 'node:crypto';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { safeEqual } from '../auth/secrets';
import { AuditService } from '../audit/audit.service';
import { PartyEntity } from '../requests/party.entity';
import { RequestEvents } from '../requests/request-events';
import { RequestsService } from '../requests/requests.service';
import { AppSecretService } from '../secrets/app-secret.service';
import { OtpEntity } from './otp.entity';
import { SignerSessions } from './signer-sessions.service';
import { refuseAction } from '../requests/rules';
import { loadSigner, type SignerContext } from './signer-link.guard';

const HOUR_MS = 3_600_000;

/**
 * OTPs for recipients (DESIGN.md section 3): 6 digits, only an HMAC kept, valid 10 minutes, 5 verify attempts, a new
 * one no sooner than 30 s after the last and at most 5 an hour, sent by SMS and e-mail. Each wrong guess is counted by
 * a conditional UPDATE before the code is compared, so parallel guesses cannot exceed the limit.
 */
@Injectable()
export class OtpService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly secrets: AppSecretService,
    private readonly audit: AuditService,
    private readonly requests: RequestsService,
    private readonly events: RequestEvents,
    private readonly sessions: SignerSessions,
  ) {}

  private async codeHash(id: string, code: string): Promise<string> {
    return (await this.secrets.hmac('otp', `${id}:${code}`)).toString('hex');
  }

  async send({ party, request }: SignerContext, ip: string | null): Promise<SendOtpResponse> {
    if (!request.otpRequired) throw new AppError('SIGNING_REFUSED', RecipientMessages.otpNotNeeded);
    const now = this.clock.now();
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(Limits.otpLength, '0');
    const codeHash = await this.codeHash(id, code);
    await this.db.transaction(async (manager) => {
      const { req, parties, me, org } = await loadSigner(manager, this.requests, { party, request }, true);
      const refused = refuseAction(req, me, parties);
      if (refused) throw new AppError('SIGNING_REFUSED', refused);
      const recent = await manager.find(OtpEntity, {
        where: { partyId: me.id, createdAt: MoreThan(new Date(now.getTime() - HOUR_MS)) },
        order: { createdAt: 'DESC' },
      });
      const wait = recent.length
        ? Math.ceil((recent[0].createdAt.getTime() + Limits.otpResendSeconds * 1000 - now.getTime()) / 1000)
        : 0;
      if (wait > 0)
        throw new AppError('TOO_MANY_ATTEMPTS', RecipientMessages.otpResendWait.replace('{seconds}', String(wait)), {
          'Retry-After': String(wait),
        });
      if (recent.length >= Limits.otpMaxSendsPerHour) {
        const retry = Math.ceil((recent[recent.length - 1].createdAt.getTime() + HOUR_MS - now.getTime()) / 1000);
        throw new AppError('TOO_MANY_ATTEMPTS', RecipientMessages.otpTooManySends, { 'Retry-After': String(retry) });
      }
      await manager.insert(OtpEntity, {
        id,
        partyId: me.id,
        orgId: me.orgId,
        refId: me.refId,
        codeHash,
        expiresAt: new Date(now.getTime() + Limits.otpValiditySeconds * 1000),
        attempts: 0,
        verifiedAt: null,
        createdAt: now,
      });
      await this.audit.recordParty(manager, me, 'party.otp_sent', ip, { otpId: id, resend: recent.length > 0 });
      await this.events.otp(manager, org, req, me, code);
    });
    return {
      code: 200,
      message: Messages.otpSent,
      userId: id,
      resend_after: Limits.otpResendSeconds,
      expires_in: Limits.otpValiditySeconds,
    };
  }

  /** The party's latest OTP while it can still be verified (not expired, not used, attempts left), for a reload. */
  async pending(party: Pick<PartyEntity, 'id'>): Promise<PendingOtp | null> {
    const latest = await this.db.manager.findOne(OtpEntity, {
      where: { partyId: party.id },
      order: { createdAt: 'DESC' },
    });
    const now = this.clock.now().getTime();
    if (!latest || latest.verifiedAt || latest.attempts >= Limits.otpMaxVerifyAttempts) return null;
    if (latest.expiresAt.getTime() <= now) return null;
    return {
      userId: latest.id,
      resend_after: Math.max(0, Math.ceil((latest.createdAt.getTime() + Limits.otpResendSeconds * 1000 - now) / 1000)),
      expires_in: Math.ceil((latest.expiresAt.getTime() - now) / 1000),
    };
  }

  async verify({ party }: SignerContext, userId: string, otp: unknown, ip: string | null): Promise<VerifyOtpResponse> {
    const code = typeof otp === 'number' ? String(otp).padStart(Limits.otpLength, '0') : otp;
    if (typeof code !== 'string' || !/^\d{6}$/.test(code.trim()))
      throw new AppError('VALIDATION_FAILED', RecipientMessages.otpFormat);
    const row = await this.db.manager.findOneBy(OtpEntity, { id: userId, partyId: party.id });
    if (!row) throw new AppError('SIGNING_REFUSED', RecipientMessages.otpNotRequested);
    const now = this.clock.now();
    const answer = (verify: boolean, expired: boolean, attempts: number): VerifyOtpResponse => ({
      code: 200,
      verify,
      expired,
      message: verify ? Messages.otpVerified : expired ? Messages.otpExpired : Messages.otpInvalid,
      attempts_left: Math.max(0, Limits.otpMaxVerifyAttempts - attempts),
    });
    // One verification, one session: a code already used opens nothing more (another device asks for its own).
    if (row.verifiedAt) return { ...answer(false, true, row.attempts), message: RecipientMessages.otpAlreadyUsed };
    const latest = await this.db.manager.findOne(OtpEntity, {
      where: { partyId: party.id },
      order: { createdAt: 'DESC' },
      select: { id: true },
    });
    // A newer OTP replaces this one; an old code no longer works.
    if (row.expiresAt.getTime() <= now.getTime() || latest?.id !== row.id) return answer(false, true, row.attempts);

    const taken = await this.db.manager
      .createQueryBuilder()
      .update(OtpEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where('id = :id AND attempts < :max AND verified_at IS NULL', { id: row.id, max: Limits.otpMaxVerifyAttempts })
      .execute();
    if (!taken.affected) throw new AppError('TOO_MANY_ATTEMPTS', RecipientMessages.otpTooManyAttempts);
    const attempts = row.attempts + 1;
    if (!safeEqual(await this.codeHash(row.id, code.trim()), row.codeHash)) {
      await this.db.transaction((manager) =>
        this.audit.recordParty(manager, party, 'party.otp_failed', ip, { otpId: row.id, attempts }),
      );
      return answer(false, false, attempts);
    }
    const session = await this.db.transaction(async (manager) => {
      // Conditional: two right answers sent at once open one session.
      const first = await manager.update(OtpEntity, { id: row.id, verifiedAt: IsNull() }, { verifiedAt: now });
      if (!first.affected) return null;
      await manager.update(PartyEntity, { id: party.id }, { otpVerifiedAt: now, updatedAt: now });
      const opened = await this.sessions.open(manager, party, row.id);
      await this.audit.recordParty(manager, party, 'party.otp_verified', ip, { otpId: row.id });
      return opened;
    });
    if (!session) return { ...answer(false, true, attempts), message: RecipientMessages.otpAlreadyUsed };
    return { ...answer(true, false, attempts), session_token: session.token, session_idle_seconds: session.expiresIn };
  }
}
