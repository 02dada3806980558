import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * A recipient's login to /list, their own list of requests: the address they gave (normalised), the network address
 * it came from (for the per-address limit), and once its OTP (`otps`, purpose `recipient-list`, the same id) is
 * verified the list token (its SHA-256) and when it stops working. Rows older than a day, and their OTPs, are removed
 * by the next login.
 */
@Entity('recipient_list_logins')
@Index('idx_recipient_list_ip', ['ip', 'createdAt'])
@Index('idx_recipient_list_created', ['createdAt'])
@Index('uq_recipient_list_token', ['tokenHash'], { unique: true })
export class RecipientListLoginEntity {
  /** The id the page sends back with the OTP: the id of that OTP. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** A lower-case e-mail, or +91 and 10 digits. */
  @Column({ type: 'varchar', length: 254 })
  identifier!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true })
  tokenHash!: string | null;

  @DateTimeColumn({ name: 'token_expires_at', nullable: true })
  tokenExpiresAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
