import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * One OTP sent to a party (spec: GET /v1/sendotp answers its id as userId). Only an HMAC of the code is kept; the row
 * counts wrong attempts. In the database, not in a process's memory, so every API node sees the same state.
 */
@Entity('otps')
@Index('idx_otps_party_created', ['partyId', 'createdAt'])
export class OtpEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'party_id', type: 'varchar', length: 36 })
  partyId!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  /** HMAC-SHA256(app secret 'otp', id + code), hex. */
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
