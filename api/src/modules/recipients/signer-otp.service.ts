import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Limits,
  Messages,
  RecipientMessages,
  type PendingOtp,
  type RecipientLanguage,
  type SendOtpResponse,
  type VerifyOtpResponse,
} from '@esign/contract';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { AuditService } from '../audit/audit.service';
import { OtpService, otpSendRefused } from '../otp/otp.service';
import { PartyEntity } from '../requests/party.entity';
import { RequestEvents } from '../requests/request-events';
import { RequestRepository } from '../requests/request-repository';
import { SignerSessions } from './signer-sessions.service';
import { refuseAction } from '../requests/rules';
import { loadSigner, type SignerContext } from './signer-link.guard';

/**
 * OTPs for recipients (DESIGN.md section 3), the `signing` purpose of the OTP service: 6 digits, only an HMAC kept,
 * valid 10 minutes, 5 verify attempts, a new one no sooner than 30 s after the last and at most 5 an hour, sent by SMS
 * and e-mail. A verification opens a signer session.
 */
@Injectable()
export class SignerOtpService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly otps: OtpService,
    private readonly audit: AuditService,
    private readonly requests: RequestRepository,
    private readonly events: RequestEvents,
    private readonly sessions: SignerSessions,
  ) {}

  /** `language`: the signing page's (its SMS and e-mail are in it); null: the party's. */
  async send(
    { party, request }: SignerContext,
    ip: string | null,
    language: RecipientLanguage | null = null,
  ): Promise<SendOtpResponse> {
    if (!request.otpRequired) throw new AppError('SIGNING_REFUSED', RecipientMessages.otpNotNeeded);
    const otp = await this.otps.create('signing');
    await this.db.transaction(async (manager) => {
      const { req, parties, me, org } = await loadSigner(manager, this.requests, { party, request }, true);
      const refused = refuseAction(req, me, parties);
      if (refused) throw new AppError('SIGNING_REFUSED', refused);
      const check = await this.otps.mayIssue(manager, 'signing', me.id);
      if (!check.allowed)
        throw otpSendRefused(check, {
          resendWait: RecipientMessages.otpResendWait,
          tooManySends: RecipientMessages.otpTooManySends,
        });
      await this.otps.save(manager, otp, me.id, me);
      await this.audit.recordParty(manager, me, 'party.otp_sent', ip, { otpId: otp.id, resend: check.resend });
      await this.events.otp(manager, org, req, me, otp.code, language);
    });
    return {
      code: 200,
      message: Messages.otpSent,
      userId: otp.id,
      resend_after: Limits.otpResendSeconds,
      expires_in: Limits.otpValiditySeconds,
    };
  }

  /** The party's latest OTP while it can still be verified (not expired, not used, attempts left), for a reload. */
  async pending(party: Pick<PartyEntity, 'id'>): Promise<PendingOtp | null> {
    const pending = await this.otps.pending('signing', party.id);
    return pending && { userId: pending.id, resend_after: pending.resendAfter, expires_in: pending.expiresIn };
  }

  /** `code`: six digits (the contract's signerOtpSchema). */
  async verify({ party }: SignerContext, userId: string, code: string, ip: string | null): Promise<VerifyOtpResponse> {
    const check = await this.otps.verify('signing', userId, code, {
      subject: party.id,
      onVerified: async (manager, row) => {
        const now = row.verifiedAt;
        await manager.update(PartyEntity, { id: party.id }, { otpVerifiedAt: now, updatedAt: now });
        const opened = await this.sessions.open(manager, party, row.id);
        await this.audit.recordParty(manager, party, 'party.otp_verified', ip, { otpId: row.id });
        return opened;
      },
    });
    if (check.outcome === 'unknown') throw new AppError('SIGNING_REFUSED', RecipientMessages.otpNotRequested);
    if (check.outcome === 'locked') throw new AppError('TOO_MANY_ATTEMPTS', RecipientMessages.otpTooManyAttempts);
    const answer = (verify: boolean, expired: boolean): VerifyOtpResponse => ({
      code: 200,
      verify,
      expired,
      message: verify ? Messages.otpVerified : expired ? Messages.otpExpired : Messages.otpInvalid,
      attempts_left: check.attemptsLeft,
    });
    switch (check.outcome) {
      // One verification, one session: a code already used opens nothing more (another device asks for its own).
      case 'used':
        return { ...answer(false, true), message: RecipientMessages.otpAlreadyUsed };
      case 'expired':
        return answer(false, true);
      case 'wrong':
        await this.db.transaction((manager) =>
          this.audit.recordParty(manager, party, 'party.otp_failed', ip, { otpId: check.id, attempts: check.attempts }),
        );
        return answer(false, false);
      case 'verified':
        return {
          ...answer(true, false),
          session_token: check.value.token,
          session_idle_seconds: check.value.expiresIn,
        };
    }
  }
}
