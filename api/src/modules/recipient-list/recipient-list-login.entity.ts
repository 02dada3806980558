import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * A recipient's login to /list, their own list of requests: the address they gave (normalised), the network address
 * it came from (for the per-address limit), the OTP sent there (its HMAC; a random hash when nothing was sent) with its
 * wrong attempts, and once verified the list token (its SHA-256) and when it stops working. Rows older than a day are
 * removed by the next login.
 */
@Entity('recipient_list_logins')
@Index('idx_recipient_list_identifier', ['identifier', 'createdAt'])
@Index('idx_recipient_list_ip', ['ip', 'createdAt'])
@Index('idx_recipient_list_created', ['createdAt'])
@Index('uq_recipient_list_token', ['tokenHash'], { unique: true })
export class RecipientListLoginEntity {
  /** The id the page sends back with the OTP. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** A lower-case e-mail, or +91 and 10 digits. */
  @Column({ type: 'varchar', length: 254 })
  identifier!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ name: 'otp_hash', type: 'varchar', length: 64 })
  otpHash!: string;

  @Column({ name: 'otp_attempts', type: 'int', default: 0 })
  otpAttempts!: number;

  @DateTimeColumn({ name: 'otp_expires_at' })
  otpExpiresAt!: Date;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true })
  tokenHash!: string | null;

  @DateTimeColumn({ name: 'token_expires_at', nullable: true })
  tokenExpiresAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
