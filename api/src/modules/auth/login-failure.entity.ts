import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { DateTimeColumn } from '../../database/columns';

/** Failed sign-ins, kept for the throttling window; shared by every API node through the database. */
@Entity('login_failures')
@Index('idx_login_failures_username', ['username', 'createdAt'])
@Index('idx_login_failures_ip', ['ip', 'createdAt'])
export class LoginFailureEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar', length: 64 })
  username!: string;

  @Column({ type: 'varchar', length: 64 })
  ip!: string;

  @DateTimeColumn({ name: 'created_at' })
  createdAt!: Date;
}
