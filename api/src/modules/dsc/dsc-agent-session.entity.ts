import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../database/columns';

/**
 * A desktop signer agent's session: the e-mail or phone it logged in with (as in the request) and the agent's bearer
 * token (its SHA-256), made when the OTP sent there (`otps`, purpose `dsc-login`) was verified. Tokens live 12 hours.
 */
@Entity('dsc_agent_sessions')
@Index('uq_dsc_agent_token', ['tokenHash'], { unique: true })
export class DscAgentSessionEntity {
  /** The loginId the agent sent back with the OTP: the id of that OTP. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Normalised: a lower-case e-mail, or +91 and 10 digits. */
  @Column({ type: 'varchar', length: 254 })
  identifier!: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  /** When the OTP was verified. */
  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;
}
