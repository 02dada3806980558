import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { commaList, CreatedAtColumn, DateTimeColumn, UpdatedAtColumn } from '../../database/columns';

/**
 * An organisation's webhook endpoint. The signing secret has to be read to sign each delivery (HMAC-SHA256), so it
 * is kept, not hashed; it is shown once at creation and never returned again.
 */
@Entity('webhooks')
@Index('idx_webhooks_org', ['orgId'])
export class WebhookEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** Event names it wants ('*' for all). */
  @Column({ type: 'varchar', length: 1000, transformer: commaList })
  events!: string[];

  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** Issue 24: deliveries in a row that ended failed since the last one delivered. */
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 })
  consecutiveFailures!: number;

  /** When the current run of failed attempts began; null once a delivery goes through. */
  @DateTimeColumn({ name: 'failing_since', nullable: true })
  failingSince!: Date | null;

  /** Why and when it was disabled (by the limits of WebhookMessages, or by an administrator); null while active. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 500, nullable: true })
  disabledReason!: string | null;

  @DateTimeColumn({ name: 'disabled_at', nullable: true })
  disabledAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
