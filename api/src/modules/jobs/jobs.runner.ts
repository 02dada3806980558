import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource, In, LessThan, LessThanOrEqual, Not, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobEntity } from './job.entity';
import type { JobHandler } from './job.types';

/**
 * Jobs one runner runs at once in each lane (handlers wait on SMTP, SMS gateways and webhook receivers, not on the
 * CPU). A job type runs in the default lane unless registered in another (webhook deliveries: issue 24), so receivers
 * that hang for their whole timeout never hold up e-mails, SMS or seals.
 */
export const CONCURRENCY = 4;
export const DEFAULT_LANE = 'default';
/** On shutdown, running handlers get this long to finish, then are aborted and get as long again. */
const SHUTDOWN_GRACE_MS = 5000;
const MAX_ERROR = 1000;

/** Delay before the next attempt after `attempts` failed ones: 30 s · 2^(attempts-1), at most 1 h, plus 0-10 %. */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(30_000 * 2 ** Math.max(attempts - 1, 0), 3_600_000);
  return Math.round(base * (1 + 0.1 * random()));
}

/**
 * The durable in-process job runner over the jobs table (see ARCHITECTURE.md, "Jobs").
 *
 * A job is claimed by one conditional UPDATE (`WHERE id = ? AND status = 'queued'`) whose affected-row count picks
 * the single winner, so any number of runners (API nodes) can poll the same table. While a handler runs, the runner
 * renews `locked_at` every lease/3; a running job whose lease ran out (its process died) is queued again by whichever
 * runner polls next, and on SQLite (one process by design) every running job left by a previous process is queued
 * again at start. Delivery is therefore at least once: handlers must be idempotent.
 */
@Injectable()
export class JobsRunner implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  /** Written to locked_by: which process holds a job. */
  readonly id = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly log = new Logger('JobsRunner');
  private readonly handlers = new Map<string, JobHandler>();
  /** The lane of each job type (absent: the default lane). */
  private readonly lanesOfTypes = new Map<string, string>();
  /** At most this many jobs of a type at once in this runner (absent: only its lane's CONCURRENCY bounds it). */
  private readonly limits = new Map<string, number>();
  private readonly active = new Map<number, Promise<void>>();
  /** The lane and the type of each job this runner is running. */
  private readonly activeLanes = new Map<number, string>();
  private readonly activeTypes = new Map<number, string>();
  private abort = new AbortController();
  private timer?: NodeJS.Timeout;
  private started = false;
  private stopping = false;
  private ticking = false;
  private tickAgain = false;
  /** Scale-out (REDIS_URL): set by BullJobs; `nudge()` then hands due jobs to BullMQ instead of polling. */
  private dispatcher: (() => void) | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  private get jobs(): Repository<JobEntity> {
    return this.db.getRepository(JobEntity);
  }

  /**
   * Registers the handler of a job type (modules call this in onModuleInit). `lane`: the job type runs beside the
   * default lane's jobs with slots of its own (and, with REDIS_URL, its own BullMQ queue). `concurrency`: at most that
   * many jobs of the type run at once in this runner; the others stay queued (not claimed, so a process that dies
   * while they wait does not count as their interruption) and the free slots go to other types. For CPU-bound work
   * such as the seal, whose runs side by side only share the one thread.
   */
  register<P extends object>(
    type: string,
    handler: JobHandler<P>,
    opts: { lane?: string; concurrency?: number } = {},
  ): void {
    if (this.handlers.has(type)) throw new Error(`A handler for job type '${type}' is registered already.`);
    this.handlers.set(type, handler as JobHandler);
    if (opts.lane && opts.lane !== DEFAULT_LANE) this.lanesOfTypes.set(type, opts.lane);
    if (opts.concurrency !== undefined) this.limits.set(type, Math.max(1, Math.floor(opts.concurrency)));
  }

  /** The lane a job type runs in. */
  laneOf(type: string): string {
    return this.lanesOfTypes.get(type) ?? DEFAULT_LANE;
  }

  /** Every lane some registered job type runs in (the default lane first). */
  get lanes(): string[] {
    return [DEFAULT_LANE, ...new Set(this.lanesOfTypes.values())];
  }

  /** The registered job types whose lane has a free slot in this runner and that are under their own limit. */
  private claimableTypes(): string[] {
    const busy = new Map<string, number>();
    for (const lane of this.activeLanes.values()) busy.set(lane, (busy.get(lane) ?? 0) + 1);
    const running = new Map<string, number>();
    for (const type of this.activeTypes.values()) running.set(type, (running.get(type) ?? 0) + 1);
    return this.types.filter(
      (type) =>
        (busy.get(this.laneOf(type)) ?? 0) < CONCURRENCY &&
        (running.get(type) ?? 0) < (this.limits.get(type) ?? Infinity),
    );
  }

  get running(): boolean {
    return this.started && !this.stopping;
  }

  async onApplicationBootstrap(): Promise<void> {
    // Only the server runs jobs: the management command builds the same modules without an HTTP adapter.
    if (!this.config.jobs.runner || !this.adapterHost.httpAdapter) return;
    if (this.config.redis) {
      // Scale-out: the worker process (npm run worker -w api) runs the jobs that BullMQ hands it.
      this.log.log('jobs run on BullMQ (REDIS_URL): start the worker process, npm run worker -w api');
      return;
    }
    await this.start();
  }

  /** Scale-out: BullJobs takes over `nudge()` (a hand-over of due jobs to BullMQ rather than a poll). */
  useDispatcher(dispatch: () => void): void {
    this.dispatcher = dispatch;
  }

  /** The job types this process can run. */
  get types(): string[] {
    return [...this.handlers.keys()];
  }

  /**
   * Scale-out: runs job `id` if it is still queued and due (claimed by the same conditional UPDATE as the poll, so a
   * job handed to BullMQ twice still runs once). False when it was not claimable (run already, not due, unknown).
   */
  async runOne(id: number): Promise<boolean> {
    const types = this.types;
    if (!Number.isInteger(id) || !types.length || this.active.has(id)) return false;
    const now = this.clock.now();
    const claimed = await this.jobs.update(
      { id, status: 'queued', runAt: LessThanOrEqual(now), type: In(types) },
      { status: 'running', lockedBy: this.id, lockedAt: now, updatedAt: now },
    );
    if (claimed.affected !== 1) return false;
    const job = await this.jobs.findOne({ where: { id } });
    if (!job) return false;
    await this.track(job);
    return true;
  }

  /** Scale-out: the queued jobs that are due now (oldest first), for the hand-over to BullMQ. */
  due(limit: number): Promise<JobEntity[]> {
    const types = this.types;
    if (!types.length) return Promise.resolve([]);
    return this.jobs.find({
      select: { id: true, type: true, runAt: true, attempts: true, payload: true },
      where: { status: 'queued', runAt: LessThanOrEqual(this.clock.now()), type: In(types) },
      order: { runAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }

  /** Scale-out: queues again the running jobs whose lease ran out (their worker died). */
  recoverStale(): Promise<void> {
    return this.recover(false);
  }

  /** Waits for the handlers running in this process (aborting them after the grace period), without a poll loop. */
  async settleActive(): Promise<void> {
    this.stopping = true;
    if (!(await this.settle(SHUTDOWN_GRACE_MS))) {
      this.abort.abort(new Error('the job runner is stopping'));
      await this.settle(SHUTDOWN_GRACE_MS);
    }
  }

  async start(): Promise<void> {
    if (this.started) return;
    if (this.config.database.engine === 'sqlite') await this.recover(true);
    this.started = true;
    this.stopping = false;
    this.abort = new AbortController();
    this.log.log(`job runner ${this.id} started (poll every ${this.config.jobs.pollMs} ms)`);
    this.wake(0);
  }

  /** Before TypeORM closes the database (it does so in onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Stops polling and waits for the running handlers (aborting them after a grace period). */
  async stop(): Promise<void> {
    if (this.stopping || !this.started) return;
    this.stopping = true;
    clearTimeout(this.timer);
    if (!(await this.settle(SHUTDOWN_GRACE_MS))) {
      this.abort.abort(new Error('the job runner is stopping'));
      if (!(await this.settle(SHUTDOWN_GRACE_MS)))
        this.log.warn(`${this.active.size} job(s) still running at shutdown; they will run again after the lease`);
    }
    this.started = false;
    // Stopped: drain() (tests, management) runs jobs with a live signal again, and start() may poll again.
    this.stopping = false;
    this.abort = new AbortController();
  }

  /**
   * Runs every due job now, one after another, until none is due (time as the Clock says), and returns how many
   * attempts ran. For tests and the management command; works whether or not the runner is polling.
   */
  async drain(limit = 10_000): Promise<number> {
    let count = 0;
    await this.recover(false);
    for (;;) {
      const job = await this.claimNext();
      if (!job) return count;
      await this.track(job);
      if (++count >= limit) throw new Error(`drain() ran ${limit} jobs and jobs are still due`);
    }
  }

  /** Polls now rather than at the next interval: a caller just committed a job someone is waiting for. */
  nudge(): void {
    if (this.dispatcher) return this.dispatcher();
    if (this.running && !this.ticking) this.wake(0);
    else if (this.ticking) this.tickAgain = true;
  }

  private async settle(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = Promise.allSettled([...this.active.values()]).then(() => true as const);
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private wake(delay: number): void {
    if (!this.started || this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      await this.recover(false);
      while (this.running) {
        const types = this.claimableTypes();
        if (!types.length) break;
        const job = await this.claimNext(types);
        if (!job) break;
        void this.track(job).finally(() => this.wake(0));
      }
    } catch (err) {
      this.log.error(`polling the jobs table failed: ${message(err)}`);
    } finally {
      this.ticking = false;
    }
    const again = this.tickAgain;
    this.tickAgain = false;
    this.wake(again ? 0 : this.config.jobs.pollMs);
  }

  private track(job: JobEntity): Promise<void> {
    this.activeLanes.set(job.id, this.laneOf(job.type));
    this.activeTypes.set(job.id, job.type);
    const run = this.execute(job).finally(() => {
      this.active.delete(job.id);
      this.activeLanes.delete(job.id);
      this.activeTypes.delete(job.id);
    });
    this.active.set(job.id, run);
    return run;
  }

  /** Claims the next due job of the given types (every registered one by default); null when none is due. */
  private async claimNext(types: string[] = this.types): Promise<JobEntity | null> {
    if (!types.length) return null;
    const now = this.clock.now();
    const due = await this.jobs.find({
      select: { id: true },
      where: { status: 'queued', runAt: LessThanOrEqual(now), type: In(types) },
      order: { runAt: 'ASC', id: 'ASC' },
      take: 10,
    });
    for (const { id } of due) {
      if (this.active.has(id)) continue;
      // The single winner: every other runner's UPDATE matches no row.
      const claimed = await this.jobs.update(
        { id, status: 'queued', runAt: LessThanOrEqual(now) },
        { status: 'running', lockedBy: this.id, lockedAt: now, updatedAt: now },
      );
      if (claimed.affected === 1) return this.jobs.findOne({ where: { id } });
    }
    return null;
  }

  private async execute(job: JobEntity): Promise<void> {
    const handler = this.handlers.get(job.type);
    if (!handler) return;
    let next: { runAt: Date; payload?: object } | null = null;
    const leaseMs = this.config.jobs.leaseSeconds * 1000;
    const heartbeat = setInterval(() => void this.renew(job.id), Math.max(Math.floor(leaseMs / 3), 200));
    heartbeat.unref();
    let failure: unknown;
    let failed = false;
    try {
      await handler(job.payload, {
        job,
        manager: this.db.manager,
        signal: this.abort.signal,
        isLastAttempt: job.attempts + 1 >= job.maxAttempts,
        reschedule: (runAt, payload) => {
          next = { runAt, payload };
        },
        progressed: () => this.progressed(job),
      });
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      clearInterval(heartbeat);
    }
    try {
      if (!failed) await this.succeeded(job, next);
      else if (this.stopping && this.abort.signal.aborted) await this.release(job);
      else await this.failed(job, failure);
    } catch (err) {
      // The database went away: the job stays running and comes back after its lease.
      this.log.error(`recording the outcome of job ${job.id} (${job.type}) failed: ${message(err)}`);
    }
  }

  /** The outcome is written only while this runner still holds the job (not after another runner took it over). */
  private held(job: JobEntity) {
    return { id: job.id, status: 'running' as const, lockedBy: this.id };
  }

  private async succeeded(job: JobEntity, next: { runAt: Date; payload?: object } | null): Promise<void> {
    const now = this.clock.now();
    const unlocked = { lockedBy: null, lockedAt: null, lastError: null, updatedAt: now };
    if (next) {
      await this.jobs.update(this.held(job), {
        ...unlocked,
        status: 'queued',
        runAt: next.runAt,
        attempts: 0,
        interruptions: 0,
        ...(next.payload ? { payload: next.payload as QueryDeepPartialEntity<JobEntity>['payload'] } : {}),
      });
    } else {
      await this.jobs.update(this.held(job), { ...unlocked, status: 'done', dedupeKey: null });
    }
  }

  private async failed(job: JobEntity, err: unknown): Promise<void> {
    const now = this.clock.now();
    const attempts = job.attempts + 1;
    const lastError = message(err).slice(0, MAX_ERROR);
    const final = attempts >= job.maxAttempts;
    // The run ended with an outcome: the interruptions before it were not this job's doing.
    const common = { attempts, interruptions: 0, lastError, lockedBy: null, lockedAt: null, updatedAt: now };
    await this.jobs.update(
      this.held(job),
      final
        ? { ...common, status: 'failed', dedupeKey: null }
        : { ...common, status: 'queued', runAt: new Date(now.getTime() + retryDelayMs(attempts)) },
    );
    this.log.warn(
      `job ${job.id} (${job.type}) attempt ${attempts}/${job.maxAttempts} failed${final ? ' for good' : ''}: ${lastError}`,
    );
  }

  /** Aborted by shutdown: back in the queue as it was, the attempt not counted. */
  private async release(job: JobEntity): Promise<void> {
    await this.jobs.update(this.held(job), {
      status: 'queued',
      lockedBy: null,
      lockedAt: null,
      updatedAt: this.clock.now(),
    });
  }

  private async progressed(job: JobEntity): Promise<void> {
    if (!job.interruptions) return;
    await this.jobs.update(this.held(job), { interruptions: 0 });
    job.interruptions = 0;
  }

  private async renew(id: number): Promise<void> {
    try {
      await this.jobs.update({ id, status: 'running', lockedBy: this.id }, { lockedAt: this.clock.now() });
    } catch (err) {
      this.log.error(`renewing the lease of job ${id} failed: ${message(err)}`);
    }
  }

  /**
   * Queues again the running jobs whose runner is gone: those whose lease ran out or, with `all` (SQLite at start),
   * every one not held by this runner. The interrupted run is not an attempt (the process died: a kill, a restart, a
   * crash elsewhere), so a seal interrupted by many restarts still runs. It is counted apart, and a job whose process
   * died under it `JOBS_MAX_INTERRUPTIONS` times in a row (one that brings its process down) ends `failed`.
   */
  private async recover(all: boolean): Promise<void> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.config.jobs.leaseSeconds * 1000);
    const limit = this.config.jobs.maxInterruptions;
    const stale = await this.jobs.find({
      where: { status: 'running', lockedBy: Not(this.id), ...(all ? {} : { lockedAt: LessThan(cutoff) }) },
    });
    for (const job of stale) {
      const interruptions = job.interruptions + 1;
      const final = interruptions >= limit;
      const lastError = `interrupted ${interruptions}/${limit}: runner ${job.lockedBy} stopped while running it`.slice(
        0,
        MAX_ERROR,
      );
      const res = await this.jobs.update(
        {
          id: job.id,
          status: 'running',
          lockedBy: job.lockedBy ?? undefined,
          ...(all ? {} : { lockedAt: LessThan(cutoff) }),
        },
        {
          status: final ? 'failed' : 'queued',
          interruptions,
          lastError,
          lockedBy: null,
          lockedAt: null,
          updatedAt: now,
          ...(final ? { dedupeKey: null } : {}),
        },
      );
      if (res.affected) this.log.warn(`job ${job.id} (${job.type}) ${lastError}; ${final ? 'failed' : 'queued again'}`);
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
