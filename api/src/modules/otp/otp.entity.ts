import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, DateTimeColumn } from '../../database/columns';
import type { OtpPurpose } from './otp-policies';

/**
 * One OTP sent, whatever for (`purpose`): to a party before signing (spec: GET /v1/sendotp answers its id as userId),
 * to a DSC agent's login address, to a /list login's address. Only an HMAC of the code is kept; the row counts wrong
 * attempts. In the database, not in a process's memory, so every API node sees the same state.
 */
@Entity('otps')
@Index('idx_otps_subject_created', ['purpose', 'subject', 'createdAt'])
export class OtpEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** What the code is for (`OTP_POLICIES`): a code of one purpose is never accepted for another. */
  @Column({ type: 'varchar', length: 32 })
  purpose!: OtpPurpose;

  /**
   * Whom it was sent to: the party's id (signing), the normalised e-mail or +91 phone (DSC agent, /list). Resend limits
   * count per purpose and subject, and a newer code replaces an older one of the same subject.
   */
  @Column({ type: 'varchar', length: 254 })
  subject!: string;

  /** The party, its organisation and request (signing only). */
  @Column({ name: 'party_id', type: 'varchar', length: 36, nullable: true })
  partyId!: string | null;

  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId!: string | null;

  @Column({ name: 'ref_id', type: 'bigint', nullable: true, transformer: bigintNumber })
  refId!: number | null;

  /** HMAC-SHA256(the purpose's app secret, id + ':' + code), hex; a random value no code matches when none was sent. */
  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @DateTimeColumn({ name: 'verified_at', nullable: true })
  verifiedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
