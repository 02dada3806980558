import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { commaList, CreatedAtColumn, UpdatedAtColumn } from '../../database/columns';

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

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
