import type { UserRole } from '@esign/contract';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn, UpdatedAtColumn } from '../../database/columns';

@Entity('users')
// The last-administrator check counts an organisation's active administrators (issue 22).
@Index('idx_users_org_role', ['orgId', 'role'])
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_users_org')
  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  /** Unique across organisations: the login path is /consumers/{username}. */
  @Index('uq_users_username', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  username!: string;

  /**
   * Where the product writes to the user (a request they sent was rejected, an invitation, a password reset); null:
   * nothing is sent. Set with `manage create-user --email`, `manage set-email` or PUT /api/users/{id}.
   */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email!: string | null;

  /** argon2id; null for an invited user who has not set a password yet (no password signs in). */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /**
   * admin (organisation administrator: users, API keys, webhooks, settings, logo, seal) or staff (sending and
   * everything about requests, drafts and templates). Users made before roles existed are administrators.
   */
  @Column({ type: 'varchar', length: 8, default: 'admin' })
  role!: UserRole;

  /** When the user last signed in (a session key issued). */
  @DateTimeColumn({ name: 'last_login_at', nullable: true })
  lastLoginAt!: Date | null;

  /** When the last invitation or password-reset link was sent. */
  @DateTimeColumn({ name: 'link_sent_at', nullable: true })
  linkSentAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
