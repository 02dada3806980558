import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../../database/columns';

export type SandboxSessionStatus = 'consent' | 'otp' | 'done' | 'cancelled';

/**
 * The sandbox ESP's side of one `<Esign>` request: what the ASP asked to sign and where to answer, the Aadhaar number
 * entered (only its last 4 digits are kept), the OTP (an HMAC of it) and how many tries were spent. Its id is the
 * capability in the sandbox pages' forms (32 random bytes, never guessable).
 */
@Entity('esp_sandbox_sessions')
export class SandboxSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'asp_id', type: 'varchar', length: 64 })
  aspId!: string;

  @Column({ name: 'asp_txn', type: 'varchar', length: 64 })
  aspTxn!: string;

  @Column({ name: 'hash_hex', type: 'varchar', length: 64 })
  hashHex!: string;

  @Column({ name: 'doc_info', type: 'varchar', length: 300 })
  docInfo!: string;

  @Column({ name: 'response_url', type: 'varchar', length: 2048 })
  responseUrl!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: SandboxSessionStatus;

  @Column({ name: 'aadhaar_last4', type: 'varchar', length: 4, nullable: true })
  aadhaarLast4!: string | null;

  /** The name the sandbox's resident record gives (what the certificate will carry). */
  @Column({ name: 'resident_name', type: 'varchar', length: 200, nullable: true })
  residentName!: string | null;

  @Column({ name: 'phone', type: 'varchar', length: 32, nullable: true })
  phone!: string | null;

  @Column({ name: 'otp_hash', type: 'varchar', length: 64, nullable: true })
  otpHash!: string | null;

  @Column({ name: 'otp_attempts', type: 'int', default: 0 })
  otpAttempts!: number;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;
}
