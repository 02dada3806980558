import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * A signer session (issue 18): what a verified OTP gives the browser that verified it. The token (256 random bits) is
 * held in that tab's session storage and sent as `x-signer-session`; only its SHA-256 is kept. It is bound to one
 * party, dies after `Limits.signerSessionIdleSeconds` unused or `signerSessionMaxSeconds` in all, and ends with the
 * party's signing (signature submitted, rejected) or the request.
 */
@Entity('signer_sessions')
@Index('idx_signer_sessions_party', ['partyId'])
export class SignerSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_signer_sessions_token', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'party_id', type: 'varchar', length: 36 })
  partyId!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  /** The OTP whose verification opened the session. */
  @Column({ name: 'otp_id', type: 'varchar', length: 36 })
  otpId!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'last_used_at' })
  lastUsedAt!: Date;

  /** The absolute end: created + signerSessionMaxSeconds. */
  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;

  /** Set when the party's signing ended (signature submitted or rejected) or the request ended. */
  @DateTimeColumn({ name: 'ended_at', nullable: true })
  endedAt!: Date | null;
}
