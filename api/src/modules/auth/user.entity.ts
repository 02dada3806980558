import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from '../../database/columns';

@Entity('users')
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
   * Where the product writes to the user (a request they sent was rejected); null: nothing is sent. Set with
   * `manage create-user --email` or `manage set-email`.
   */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email!: string | null;

  /** argon2id. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash!: string;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
