import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

export type PasswordLinkPurpose = 'invite' | 'reset';

/**
 * A link that lets a staff user set their password (issue 22): sent by e-mail when an administrator invites the user
 * or asks for a reset. Only the SHA-256 of its 256-bit token is kept. It works once, until `expires_at`, and dies when
 * a newer link is sent for the same user (the older rows are deleted).
 */
@Entity('password_links')
@Index('idx_password_links_user', ['userId'])
export class PasswordLinkEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Index('uq_password_links_token', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ type: 'varchar', length: 8 })
  purpose!: PasswordLinkPurpose;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;

  @DateTimeColumn({ name: 'used_at', nullable: true })
  usedAt!: Date | null;
}
