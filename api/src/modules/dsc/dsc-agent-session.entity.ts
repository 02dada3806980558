import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * A desktop signer agent's login: the e-mail or phone it logs in with (as in the request), the OTP sent there (its
 * HMAC), and once verified the agent's bearer token (its SHA-256). Tokens live 12 hours.
 */
@Entity('dsc_agent_sessions')
@Index('uq_dsc_agent_token', ['tokenHash'], { unique: true })
export class DscAgentSessionEntity {
  /** The loginId the agent sends back with the OTP. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Normalised: a lower-case e-mail, or +91 and 10 digits. */
  @Column({ type: 'varchar', length: 254 })
  identifier!: string;

  @Column({ name: 'otp_hash', type: 'varchar', length: 64 })
  otpHash!: string;

  @Column({ name: 'otp_attempts', type: 'int', default: 0 })
  otpAttempts!: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true })
  tokenHash!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;
}
