import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

export type ApiKeyKind = 'session' | 'org';

/**
 * Both kinds of `apikey`: session keys issued at sign-in (idle and absolute expiry, revoked by sign-out) and named,
 * long-lived organisation keys for the CLI and CI scripts. Only the SHA-256 of a key is stored.
 */
@Entity('api_keys')
// Every sign-in adds a session key: the organisation keys' list reads only its own kind's rows through this index.
@Index('idx_api_keys_org_kind', ['orgId', 'kind', 'createdAt'])
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36, nullable: true })
  userId!: string | null;

  @Column({ type: 'varchar', length: 8 })
  kind!: ApiKeyKind;

  @Column({ type: 'varchar', length: 100, default: '' })
  name!: string;

  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash!: string;

  /** The first characters of the key, to recognise it in a list. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'last_used_at' })
  lastUsedAt!: Date;

  @DateTimeColumn({ name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @DateTimeColumn({ name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
