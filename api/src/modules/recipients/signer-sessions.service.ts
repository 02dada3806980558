import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Limits } from '@esign/contract';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { hashKey } from '../auth/secrets';
import type { PartyEntity } from '../requests/party.entity';
import type { RequestEntity } from '../requests/request.entity';
import { isEnded } from '../requests/rules';
import { RowReader } from '../../database/row-reader';
import { SignerSessionEntity } from './signer-session.entity';

/** A live signer session, as the guard hands it to the recipient calls. */
export interface SignerSession {
  id: string;
  /** When its OTP was verified (the session's start). */
  verifiedAt: Date;
  expiresAt: Date;
}

/** How often a session's last use is written: a call within this of the last write only reads. */
const TOUCH_MS = 30_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The party's signing is over, or the request is: no session of it acts any more. */
export const signingOver = (request: Pick<RequestEntity, 'status'>, party: PartyEntity): boolean =>
  request.status !== 'in-progress' || isEnded(party.status) || party.signatureSubmittedAt !== null;

/**
 * Signer sessions (issue 18, point 1): a verified OTP protects the signing on the device that verified it, not the
 * link. Verification opens a session (a random token only that tab holds); every call that signs, rejects or sends a
 * selfie on an OTP request needs a live one. Only the token's SHA-256 is stored.
 */
@Injectable()
export class SignerSessions {
  /** The session of a token hash: every recipient call that sends one looks it up (SQL built once). */
  private readonly byTokenHash: RowReader<SignerSessionEntity>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {
    this.byTokenHash = new RowReader(db, SignerSessionEntity, ['tokenHash']);
  }

  /** Opens a session for the party whose OTP `otpId` was just verified (in the verification's transaction). */
  async open(manager: EntityManager, party: PartyEntity, otpId: string): Promise<{ token: string; expiresIn: number }> {
    const now = this.clock.now();
    const token = randomBytes(32).toString('base64url');
    await manager.insert(SignerSessionEntity, {
      id: randomUUID(),
      tokenHash: hashKey(token),
      partyId: party.id,
      orgId: party.orgId,
      refId: party.refId,
      otpId,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: new Date(now.getTime() + Limits.signerSessionMaxSeconds * 1000),
      endedAt: null,
    });
    return { token, expiresIn: Limits.signerSessionIdleSeconds };
  }

  /**
   * The live session `token` opens for this party, or null: unknown, another party's, ended, unused for longer than
   * the idle time, past its maximum, or the party's signing or the request is over. A live session's use is recorded.
   */
  async resolve(
    token: string | null,
    party: PartyEntity,
    request: Pick<RequestEntity, 'status'>,
  ): Promise<SignerSession | null> {
    if (!token || !TOKEN.test(token)) return null;
    const row = await this.byTokenHash.one([hashKey(token)]);
    if (!row || row.partyId !== party.id || row.endedAt) return null;
    const now = this.clock.now().getTime();
    if (row.expiresAt.getTime() <= now) return null;
    if (row.lastUsedAt.getTime() + Limits.signerSessionIdleSeconds * 1000 <= now) return null;
    if (signingOver(request, party)) return null;
    if (now - row.lastUsedAt.getTime() >= TOUCH_MS)
      await this.db.manager.update(SignerSessionEntity, { id: row.id }, { lastUsedAt: new Date(now) });
    return { id: row.id, verifiedAt: row.createdAt, expiresAt: row.expiresAt };
  }

  /** Ends every session of the party (its signing ended: signature submitted, rejected), in the caller's transaction. */
  async endFor(manager: EntityManager, partyIds: string[]): Promise<void> {
    if (!partyIds.length) return;
    const now = this.clock.now();
    for (const partyId of partyIds)
      await manager.update(SignerSessionEntity, { partyId, endedAt: IsNull() }, { endedAt: now });
  }
}
