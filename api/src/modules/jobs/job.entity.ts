import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn, JsonColumn, UpdatedAtColumn } from '../../database/columns';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/**
 * A durable job (mail, SMS, reminder, expiry, webhook delivery, sealing). Enqueued in the same transaction as the
 * change that needs it; run by the in-process runner (embedded default) or the BullMQ worker (scale-out).
 */
@Entity('jobs')
@Index('idx_jobs_due', ['status', 'runAt'])
export class JobEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar', length: 48 })
  type!: string;

  @JsonColumn()
  payload!: Record<string, unknown>;

  @Column({ type: 'varchar', length: 12 })
  status!: JobStatus;

  @DateTimeColumn({ name: 'run_at' })
  runAt!: Date;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'max_attempts', type: 'int', default: 5 })
  maxAttempts!: number;

  /**
   * Runs in a row that ended with their process (killed, crashed, out of memory) rather than with an outcome. They do
   * not count as attempts: a job fails for good on them only after `JOBS_MAX_INTERRUPTIONS`, its protection against
   * a job that brings its process down every time.
   */
  @Column({ type: 'int', default: 0 })
  interruptions!: number;

  @Column({ name: 'last_error', type: 'varchar', length: 1000, nullable: true })
  lastError!: string | null;

  /** Which runner holds it while running, and since when. */
  @Column({ name: 'locked_by', type: 'varchar', length: 64, nullable: true })
  lockedBy!: string | null;

  @DateTimeColumn({ name: 'locked_at', nullable: true })
  lockedAt!: Date | null;

  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId!: string | null;

  /** At most one queued or running job per key (e.g. the next reminder of a request). */
  @Index('uq_jobs_dedupe', { unique: true })
  @Column({ name: 'dedupe_key', type: 'varchar', length: 128, nullable: true })
  dedupeKey!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
