import type { EntityManager } from 'typeorm';
import type { JobEntity } from './job.entity';

/** What a handler gets besides its payload. */
export interface JobContext {
  /** The job as claimed: `attempts` counts the earlier attempts that failed. */
  job: JobEntity;
  /**
   * The data source's manager (not a transaction): a handler that changes several rows opens its own with
   * `manager.transaction(...)`. Never hold a transaction open across network calls.
   */
  manager: EntityManager;
  /** Aborted when the runner stops (shutdown): pass it to fetch and friends. */
  signal: AbortSignal;
  /** True when a failure of this attempt makes the job `failed` for good. */
  isLastAttempt: boolean;
  /**
   * Run this job again at `runAt` (recurring work such as reminders) instead of marking it done. The job keeps its
   * dedupe key, so `JobsService.cancel(manager, key)` still finds it; its attempts start again from 0.
   */
  reschedule(runAt: Date, payload?: object): void;
  /**
   * The run committed a step of its work (a seal's signature applied): the interruptions counted so far were not the
   * job bringing its process down, so they are forgotten. A job done in several steps across short-lived processes
   * then fails as a poison job only when `JOBS_MAX_INTERRUPTIONS` lives in a row commit nothing.
   */
  progressed(): Promise<void>;
}

/**
 * A job handler. Delivery is at least once: a handler may run again after a crash or a lost lease, so it must be
 * idempotent (check the state it is about to change before changing it). A thrown error schedules a retry.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JobHandler<P extends object = any> = (payload: P, ctx: JobContext) => Promise<void>;

export interface EnqueueJob {
  type: string;
  payload: object;
  /** When it is due (now by default). */
  runAt?: Date;
  orgId?: string | null;
  /** At most one queued or running job per key: enqueueing a key that is taken returns the job holding it. */
  dedupeKey?: string;
  /** Attempts before the job is `failed` for good (5 by default). */
  maxAttempts?: number;
}
