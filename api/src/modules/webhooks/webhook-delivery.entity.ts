import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event sent (or being retried) to one webhook, with its outcome. */
@Entity('webhook_deliveries')
@Index('idx_deliveries_webhook_created', ['webhookId', 'createdAt'])
@Index('idx_deliveries_org_created', ['orgId', 'createdAt'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'webhook_id', type: 'varchar', length: 36 })
  webhookId!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ type: 'varchar', length: 48 })
  event!: string;

  /** The exact JSON body sent (its bytes are what the signature covers). */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'varchar', length: 10 })
  status!: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  error!: string | null;

  /** The start of the receiver's last answer (at most DELIVERY_EXCERPT_BYTES of UTF-8); null before any answer. */
  @Column({ name: 'response_excerpt', type: 'text', nullable: true })
  responseExcerpt!: string | null;

  /** The delivery this one sends again (POST /api/deliveries/{id}/redeliver); null for an event's own delivery. */
  @Column({ name: 'redelivery_of', type: 'int', nullable: true })
  redeliveryOf!: number | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'delivered_at', nullable: true })
  deliveredAt!: Date | null;
}
