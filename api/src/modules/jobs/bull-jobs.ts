import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type * as BullMQ from 'bullmq';
import type { Job, Queue, Worker } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';
import type { JobEntity } from './job.entity';
import { DEFAULT_LANE, JobsRunner } from './jobs.runner';

/** BullMQ, loaded at first use: only scale-out (REDIS_URL) needs it, and the embedded default is spared ~20 MB. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bullmq = (): typeof BullMQ => require('bullmq') as typeof BullMQ;

/** The BullMQ queue every node hands due jobs to, and the worker takes them from. */
export const JOBS_QUEUE = 'esign-jobs';
/** A lane's own queue (issue 24: webhook deliveries): its jobs never wait behind the default lane's, nor the reverse. */
export const laneQueue = (lane: string): string => (lane === DEFAULT_LANE ? JOBS_QUEUE : `${JOBS_QUEUE}-${lane}`);
/** The repeatable sweep (a BullMQ job scheduler): one run per tick across every node and worker. */
export const SWEEP_JOB = 'esign-sweep';
/** Due jobs handed over per sweep (the rest follow at the next one). */
const SWEEP_BATCH = 500;
/** A worker runs this many jobs at once (plus the sweep). */
const WORKER_CONCURRENCY = 4;

/** What a BullMQ job carries: the jobs table's row id and the same payload the embedded runner passes. */
export interface BullJobData {
  id: number;
  payload: Record<string, unknown>;
}

/**
 * The BullMQ job that hands a queued row over: named after its type, carrying the row id and payload, under an id made
 * of row id, due time and attempt, so handing the same row over twice (two nodes, two sweeps) while it is pending adds
 * it once.
 */
export function bullJobOf(row: Pick<JobEntity, 'id' | 'type' | 'payload' | 'runAt' | 'attempts'>) {
  return {
    name: row.type,
    data: { id: row.id, payload: row.payload } satisfies BullJobData,
    opts: {
      jobId: `j${row.id}-${row.runAt.getTime()}-${row.attempts}`,
      attempts: 1,
      // Gone as soon as it ends: a finished BullMQ job kept under this id would swallow the next hand-over of a row
      // queued again with the same due time and attempt (its run found the row still held by a dead worker whose
      // lease had not run out yet, or a stopping worker released it), and the row would wait an hour. The jobs table
      // is the record; the id only merges hand-overs while one is still pending.
      removeOnComplete: true,
      removeOnFail: true,
    },
  };
}

/**
 * Scale-out jobs (REDIS_URL): the jobs table stays the durable record, written in the same transaction as the change
 * that needs the job (so a job exists if and only if that change committed); BullMQ carries it to the worker.
 *
 * - Hand-over: `dispatch()` adds every due, queued row to the `esign-jobs` queue as a BullMQ job named after its type,
 *   with the row id and payload, and a job id made of row id, due time and attempt, so handing the same row over twice
 *   (two nodes, two sweeps) while it is pending adds it once; a BullMQ job is removed when it ends, so the row can be
 *   handed over again whenever it is queued again.
 * - Timing: reminders, expiry and retries are rows due later. A BullMQ job scheduler (`esign-sweep`, every
 *   JOBS_POLL_MS) makes one sweep job per tick, whichever number of nodes and workers upserted it; the sweep queues
 *   again the rows whose worker died (lease ran out) and hands the due rows over. API nodes hand over at once after a
 *   commit someone waits for (`JobsRunner.nudge()`).
 * - Running: the worker (`npm run worker -w api`) takes a BullMQ job and calls `JobsRunner.runOne(id)`, which claims
 *   the row by the same conditional UPDATE as the embedded runner and runs the same handler, so a row runs once even
 *   if BullMQ delivers it twice (a stalled job after a worker was killed); retries are the runner's (row back to
 *   queued with a later due time), BullMQ's own attempts stay at 1.
 */
@Injectable()
export class BullJobs implements OnModuleInit, BeforeApplicationShutdown {
  private readonly log = new Logger('BullJobs');
  private queue: Queue | null = null;
  /** The other lanes' queues, made at first use (modules register their lanes after this one starts). */
  private readonly laneQueues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisService,
    private readonly runner: JobsRunner,
  ) {}

  get enabled(): boolean {
    return this.redis.enabled;
  }

  onModuleInit(): void {
    if (!this.redis.enabled) return;
    this.queue = new (bullmq().Queue)(JOBS_QUEUE, { connection: this.redis.connect('queue') });
    this.queue.on('error', (err: Error) => this.log.error(`BullMQ queue: ${err.message}`));
    this.runner.useDispatcher(() => this.dispatchSoon());
  }

  /** Hands every due, queued job over to BullMQ; returns how many rows were handed over. */
  async dispatch(recover = false): Promise<number> {
    const queue = this.requireQueue();
    if (recover) await this.runner.recoverStale();
    const due = await this.runner.due(SWEEP_BATCH);
    if (!due.length) return 0;
    const byLane = new Map<string, typeof due>();
    for (const row of due) {
      const lane = this.runner.laneOf(row.type);
      byLane.set(lane, [...(byLane.get(lane) ?? []), row]);
    }
    for (const [lane, rows] of byLane) {
      const jobs = rows.map(bullJobOf);
      await (lane === DEFAULT_LANE ? queue : this.queueOf(lane)).addBulk(jobs);
    }
    return due.length;
  }

  private queueOf(lane: string): Queue {
    let queue = this.laneQueues.get(lane);
    if (!queue) {
      queue = new (bullmq().Queue)(laneQueue(lane), { connection: this.redis.connect(`queue-${lane}`) });
      queue.on('error', (err: Error) => this.log.error(`BullMQ queue ${lane}: ${err.message}`));
      this.laneQueues.set(lane, queue);
    }
    return queue;
  }

  /** Coalesces hand-overs asked for by many requests at once into one running and at most one more. */
  private dispatchSoon(): void {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = this.dispatch()
      .then(() => undefined)
      .catch((err: unknown) => this.log.error(`handing due jobs to BullMQ failed: ${message(err)}`))
      .finally(() => {
        this.dispatching = null;
        if (this.dispatchAgain) {
          this.dispatchAgain = false;
          this.dispatchSoon();
        }
      });
  }

  /** The worker process: upserts the sweep schedule and starts taking jobs. */
  async startWorker(): Promise<void> {
    const queue = this.requireQueue();
    await queue.upsertJobScheduler(
      SWEEP_JOB,
      { every: this.config.jobs.pollMs },
      { name: SWEEP_JOB, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
    for (const lane of this.runner.lanes) {
      const worker = new (bullmq().Worker)(laneQueue(lane), (job: Job) => this.process(job), {
        connection: this.redis.connect(lane === DEFAULT_LANE ? 'worker' : `worker-${lane}`, true),
        // The default lane also runs the sweep.
        concurrency: WORKER_CONCURRENCY + (lane === DEFAULT_LANE ? 1 : 0),
        // A killed worker's BullMQ jobs come back after this; the row itself comes back after JOBS_LEASE_SECONDS.
        lockDuration: 30_000,
        maxStalledCount: 5,
      });
      worker.on('error', (err: Error) => this.log.error(`BullMQ worker ${lane}: ${err.message}`));
      this.workers.push(worker);
      await worker.waitUntilReady();
    }
    this.log.log(
      `BullMQ worker on queues ${this.runner.lanes.map(laneQueue).join(', ')} (sweep every ${this.config.jobs.pollMs} ms)`,
    );
  }

  private async process(job: Job): Promise<unknown> {
    if (job.name === SWEEP_JOB) return { handedOver: await this.dispatch(true) };
    const { id } = job.data as BullJobData;
    return { ran: await this.runner.runOne(Number(id)) };
  }

  async beforeApplicationShutdown(): Promise<void> {
    // The worker first (it waits for its running jobs), then the handlers' grace period, then the queue.
    if (this.workers.length) {
      await Promise.all(
        this.workers.map((w) =>
          w.close().catch((err: unknown) => this.log.error(`closing the worker: ${message(err)}`)),
        ),
      );
      await this.runner.settleActive();
    }
    await this.dispatching;
    await this.queue?.close().catch(() => undefined);
    for (const queue of this.laneQueues.values()) await queue.close().catch(() => undefined);
    this.workers.length = 0;
    this.laneQueues.clear();
    this.queue = null;
  }

  private requireQueue(): Queue {
    if (!this.queue) throw new Error('BullMQ is not configured (REDIS_URL is not set)');
    return this.queue;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
