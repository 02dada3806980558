import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '../../database/columns';

/**
 * Server-side secrets generated once per installation and shared by every API node through the database (link
 * signing keys). APP_SECRET, when set, is used instead.
 */
@Entity('app_secrets')
export class AppSecretEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name!: string;

  @Column({ type: 'varchar', length: 128 })
  value!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
