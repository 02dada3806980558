import type { WatchdogFindingKind, WatchdogFindingState } from '@esign/contract';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, DateTimeColumn } from '../../database/columns';

/**
 * Something the watchdog found that should have moved and did not (issue 24): one row per request, party and kind
 * while it lasts (`open_key`), kept once resolved as the record of what happened.
 */
@Entity('watchdog_findings')
@Index('idx_watchdog_org_state', ['orgId', 'state', 'lastSeenAt'])
export class WatchdogFindingEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  @Column({ name: 'party_order', type: 'int', nullable: true })
  partyOrder!: number | null;

  @Column({ type: 'varchar', length: 24 })
  kind!: WatchdogFindingKind;

  @Column({ type: 'varchar', length: 12 })
  state!: WatchdogFindingState;

  @Column({ type: 'varchar', length: 500 })
  detail!: string;

  /** Whether a retry can move it (as last seen): a seal to queue, messages to send again, a signer to invite. */
  @Column({ type: 'boolean', default: false })
  retryable!: boolean;

  /** Retries so far, the watchdog's own and people's. */
  @Column({ type: 'int', default: 0 })
  retries!: number;

  @DateTimeColumn({ name: 'first_seen_at' })
  firstSeenAt!: Date;

  @DateTimeColumn({ name: 'last_seen_at' })
  lastSeenAt!: Date;

  /** When the watchdog may retry it by itself next; null when it will not. */
  @DateTimeColumn({ name: 'next_retry_at', nullable: true })
  nextRetryAt!: Date | null;

  @DateTimeColumn({ name: 'reported_at', nullable: true })
  reportedAt!: Date | null;

  @DateTimeColumn({ name: 'resolved_at', nullable: true })
  resolvedAt!: Date | null;

  /** `kind:refId:order` while unresolved (one finding per thing stuck), null once resolved. */
  @Index('uq_watchdog_open_key', { unique: true })
  @Column({ name: 'open_key', type: 'varchar', length: 80, nullable: true })
  openKey!: string | null;
}
