import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, DateTimeColumn } from '../../database/columns';

export type MessageChannel = 'email' | 'sms';
export type MessageKind =
  | 'invitation'
  | 'reminder'
  | 'otp'
  | 'completed'
  | 'rejected'
  | 'failed'
  | 'expired'
  | 'cancelled'
  /** Issue 22: a staff user's invitation and password-reset links (no request, no party). */
  | 'user-invitation'
  | 'password-reset'
  /** The built-in sandbox ESP's Aadhaar OTP (standing in for UIDAI's SMS). */
  | 'esp-otp'
  /** Issue 24, to the organisation's administrators: a webhook disabled, the watchdog's findings. */
  | 'webhook-disabled'
  | 'watchdog';
export type MessageStatus = 'queued' | 'sent' | 'failed';

/**
 * Every email and SMS the product sends, with how it went. In the embedded default this is the dev outbox
 * (`GET /dev/outbox`); with SMTP_URL / SMS_URL set, the same rows record real deliveries.
 */
@Entity('outbox_messages')
@Index('idx_outbox_org_created', ['orgId', 'createdAt'])
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', nullable: true, transformer: bigintNumber })
  refId!: number | null;

  @Column({ name: 'party_order', type: 'int', nullable: true })
  partyOrder!: number | null;

  @Column({ type: 'varchar', length: 8 })
  channel!: MessageChannel;

  @Column({ type: 'varchar', length: 16 })
  kind!: MessageKind;

  @Column({ name: 'recipient', type: 'varchar', length: 254 })
  to!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  subject!: string | null;

  @Column({ type: 'text' })
  text!: string;

  @Column({ type: 'text', nullable: true })
  html!: string | null;

  @Column({ type: 'varchar', length: 8 })
  status!: MessageStatus;

  /** outbox (dev), smtp, sms-http */
  @Column({ type: 'varchar', length: 12 })
  transport!: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  error!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'sent_at', nullable: true })
  sentAt!: Date | null;
}
