import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Limits } from '@esign/contract';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { DataSource, IsNull, LessThan, MoreThan, type EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { safeEqual } from '../auth/secrets';
import type { PartyEntity } from '../requests/party.entity';
import { AppSecretService } from '../secrets/app-secret.service';
import { OtpEntity } from './otp.entity';
import { OTP_POLICIES, type OtpPurpose } from './otp-policies';

const HOUR_MS = 3_600_000;

/** A code as `onVerified` sees it: just marked verified. */
export type VerifiedOtp = OtpEntity & { verifiedAt: Date };

/** A code just made, not yet kept (`OtpService.save`). */
export interface NewOtp {
  purpose: OtpPurpose;
  /** The id the caller answers (userId, loginId, id) and gets back with the code. */
  id: string;
  /** The 6 digits to send; when nobody is to get them the stored hash matches no code. */
  code: string;
  codeHash: string;
}

/** Whether a subject may be sent a new code now; if not, the seconds until it may (for Retry-After). */
export type OtpSendCheck =
  { allowed: true; resend: boolean } | { allowed: false; reason: 'wait' | 'hourly'; retryAfter: number };

/**
 * What a guess came to. `unknown`: no code of that id (for this purpose and subject); `used`: already verified;
 * `expired`: out of time or replaced by a newer one; `locked`: no attempts left (the code was not compared); `wrong`;
 * `verified`, with what the caller's `onVerified` made in the verification's transaction.
 */
export type OtpCheck<T> =
  | { outcome: 'unknown' }
  | { outcome: 'locked'; id: string }
  | { outcome: 'used' | 'expired' | 'wrong'; id: string; attempts: number; attemptsLeft: number }
  | { outcome: 'verified'; id: string; attempts: number; attemptsLeft: number; value: T };

/** The 429 for a refused send in the caller's words; `resendWait` may name `{seconds}`. */
export function otpSendRefused(
  check: { reason: 'wait' | 'hourly'; retryAfter: number },
  messages: { resendWait: string; tooManySends: string },
): AppError {
  const seconds = String(check.retryAfter);
  const message = check.reason === 'wait' ? messages.resendWait.replace('{seconds}', seconds) : messages.tooManySends;
  return new AppError('TOO_MANY_ATTEMPTS', message, { 'Retry-After': seconds });
}

/**
 * The one OTP service (issue 20): 6-digit codes for every purpose of `OTP_POLICIES`, rows of `otps`. Only an HMAC of a
 * code is kept (keyed with the purpose's installation secret from `app_secrets`) and compared in constant time; each
 * code expires, allows a number of wrong guesses, each counted by a conditional UPDATE before the code is compared (so
 * parallel guesses cannot exceed the limit), and a subject gets a new code no sooner than the resend interval and at
 * most so many an hour. Everything is in the shared database, so every API node sees the same counts. Callers keep
 * their own answers: the service says what happened, they say it in their messages and status codes.
 */
@Injectable()
export class OtpService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly secrets: AppSecretService,
  ) {}

  private async hash(purpose: OtpPurpose, id: string, code: string): Promise<string> {
    return (await this.secrets.hmac(OTP_POLICIES[purpose].secret, `${id}:${code}`)).toString('hex');
  }

  /**
   * A new code and its id. Made before the caller's transaction: the HMAC key may be read (or made) through another
   * connection. Not `deliverable` (nobody to send it to): the hash kept is random, and no code can match it.
   */
  async create(purpose: OtpPurpose, deliverable = true): Promise<NewOtp> {
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(Limits.otpLength, '0');
    const codeHash = deliverable ? await this.hash(purpose, id, code) : randomBytes(32).toString('hex');
    return { purpose, id, code, codeHash };
  }

  /** Whether `subject` may be sent a new code now: the resend interval first, then the hourly limit. */
  async mayIssue(manager: EntityManager, purpose: OtpPurpose, subject: string): Promise<OtpSendCheck> {
    const policy = OTP_POLICIES[purpose];
    const now = this.clock.now().getTime();
    const recent = await manager.find(OtpEntity, {
      where: { purpose, subject, createdAt: MoreThan(new Date(now - HOUR_MS)) },
      order: { createdAt: 'DESC' },
      select: { id: true, createdAt: true },
    });
    const wait = recent.length ? (recent[0].createdAt.getTime() + policy.resendSeconds * 1000 - now) / 1000 : 0;
    if (wait > 0) return { allowed: false, reason: 'wait', retryAfter: Math.ceil(wait) };
    if (policy.maxSendsPerHour !== null && recent.length >= policy.maxSendsPerHour) {
      const oldest = recent[recent.length - 1].createdAt.getTime();
      return { allowed: false, reason: 'hourly', retryAfter: Math.ceil((oldest + HOUR_MS - now) / 1000) };
    }
    return { allowed: true, resend: recent.length > 0 };
  }

  /** Keeps the code (its HMAC) for `subject`, in the caller's transaction; a signing code names its party. */
  async save(
    manager: EntityManager,
    otp: NewOtp,
    subject: string,
    party?: Pick<PartyEntity, 'id' | 'orgId' | 'refId'>,
  ): Promise<void> {
    const now = this.clock.now();
    await manager.insert(OtpEntity, {
      id: otp.id,
      purpose: otp.purpose,
      subject,
      partyId: party?.id ?? null,
      orgId: party?.orgId ?? null,
      refId: party?.refId ?? null,
      codeHash: otp.codeHash,
      expiresAt: new Date(now.getTime() + OTP_POLICIES[otp.purpose].validitySeconds * 1000),
      attempts: 0,
      verifiedAt: null,
      createdAt: now,
    });
  }

  /** The subject's latest code while it can still be verified (not expired, not used, attempts left), for a reload. */
  async pending(
    purpose: OtpPurpose,
    subject: string,
  ): Promise<{ id: string; resendAfter: number; expiresIn: number } | null> {
    const policy = OTP_POLICIES[purpose];
    const latest = await this.db.manager.findOne(OtpEntity, {
      where: { purpose, subject },
      order: { createdAt: 'DESC' },
    });
    const now = this.clock.now().getTime();
    if (!latest || latest.verifiedAt || latest.attempts >= policy.maxAttempts) return null;
    if (latest.expiresAt.getTime() <= now) return null;
    return {
      id: latest.id,
      resendAfter: Math.max(0, Math.ceil((latest.createdAt.getTime() + policy.resendSeconds * 1000 - now) / 1000)),
      expiresIn: Math.ceil((latest.expiresAt.getTime() - now) / 1000),
    };
  }

  /**
   * A guess at the code `id` of this purpose (and subject, when given; `code` already checked to be 6 digits). A right
   * one is marked verified by a conditional UPDATE, so two right answers at once verify once: `onVerified` runs in
   * that transaction for the one that did, and what it answers comes back as `value`.
   */
  async verify<T>(
    purpose: OtpPurpose,
    id: string,
    code: string,
    options: { subject?: string; onVerified: (manager: EntityManager, otp: VerifiedOtp) => Promise<T> },
  ): Promise<OtpCheck<T>> {
    const policy = OTP_POLICIES[purpose];
    const left = (attempts: number) => Math.max(0, policy.maxAttempts - attempts);
    const row = await this.db.manager.findOneBy(OtpEntity, {
      id,
      purpose,
      ...(options.subject === undefined ? {} : { subject: options.subject }),
    });
    if (!row) return { outcome: 'unknown' };
    if (row.verifiedAt)
      return { outcome: 'used', id: row.id, attempts: row.attempts, attemptsLeft: left(row.attempts) };
    const now = this.clock.now();
    const expired = row.expiresAt.getTime() <= now.getTime();
    // A newer code for the same subject replaces this one, for the purposes that say so: an old code no longer works.
    if (expired || (policy.newestOnly && (await this.latestId(purpose, row.subject)) !== row.id))
      return { outcome: 'expired', id: row.id, attempts: row.attempts, attemptsLeft: left(row.attempts) };

    const taken = await this.db.manager
      .createQueryBuilder()
      .update(OtpEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where('id = :id AND attempts < :max AND verified_at IS NULL', { id: row.id, max: policy.maxAttempts })
      .execute();
    if (!taken.affected) {
      // Nothing taken: the attempts are used up, or a parallel right answer verified the code meanwhile ('used').
      const after = await this.db.manager.findOneBy(OtpEntity, { id: row.id });
      if (after?.verifiedAt)
        return { outcome: 'used', id: row.id, attempts: after.attempts, attemptsLeft: left(after.attempts) };
      return { outcome: 'locked', id: row.id };
    }
    const attempts = row.attempts + 1;
    if (!safeEqual(await this.hash(purpose, row.id, code), row.codeHash))
      return { outcome: 'wrong', id: row.id, attempts, attemptsLeft: left(attempts) };
    const verified = await this.db.transaction(async (manager) => {
      const first = await manager.update(OtpEntity, { id: row.id, verifiedAt: IsNull() }, { verifiedAt: now });
      if (!first.affected) return null;
      return { value: await options.onVerified(manager, { ...row, attempts, verifiedAt: now }) };
    });
    if (!verified) return { outcome: 'used', id: row.id, attempts, attemptsLeft: left(attempts) };
    return { outcome: 'verified', id: row.id, attempts, attemptsLeft: left(attempts), value: verified.value };
  }

  private async latestId(purpose: OtpPurpose, subject: string): Promise<string | undefined> {
    const latest = await this.db.manager.findOne(OtpEntity, {
      where: { purpose, subject },
      order: { createdAt: 'DESC' },
      select: { id: true },
    });
    return latest?.id;
  }

  /** Removes the purpose's codes made before `before` (the /list logins are kept a day). */
  async forget(manager: EntityManager, purpose: OtpPurpose, before: Date): Promise<void> {
    await manager.delete(OtpEntity, { purpose, createdAt: LessThan(before) });
  }
}
