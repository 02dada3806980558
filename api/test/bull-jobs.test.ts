import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { BullJobs, bullJobOf, JOBS_QUEUE, SWEEP_JOB } from '../src/modules/jobs/bull-jobs';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { JobsService } from '../src/modules/jobs/jobs.service';
import { LoginFailureEntity } from '../src/modules/auth/login-failure.entity';
import { startRedis, stopAll, type RedisServer } from './scale-out/cluster';
import { startTestApp, type TestApp } from './support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

/** Scale-out jobs: the jobs table stays the durable record, BullMQ on a real redis-server carries due rows to a worker. */
describe('jobs on BullMQ (REDIS_URL)', () => {
  let redis: RedisServer;
  let t: TestApp;
  let bull: BullJobs;
  let jobs: JobsService;
  let queue: Queue;
  let connection: Redis;
  const calls = new Map<string, number>();
  const repo = () => t.db.getRepository(JobEntity);
  const enqueue = (job: Parameters<JobsService['enqueue']>[1]) => t.db.transaction((m) => jobs.enqueue(m, job));

  beforeAll(async () => {
    redis = await startRedis();
    t = await startTestApp({ REDIS_URL: redis.url, JOBS_POLL_MS: '100', JOBS_LEASE_SECONDS: '5' });
    bull = t.app.get(BullJobs);
    jobs = t.app.get(JobsService);
    const runner = t.app.get(JobsRunner);
    runner.register<{ key: string; failTimes?: number }>('test.count', async ({ key, failTimes = 0 }) => {
      const n = (calls.get(key) ?? 0) + 1;
      calls.set(key, n);
      if (n <= failTimes) throw new Error(`${key} failed on attempt ${n}`);
    });
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    queue = new Queue(JOBS_QUEUE, { connection });
  });
  afterAll(async () => {
    await queue?.close();
    connection?.disconnect();
    await t?.close();
    await stopAll();
  });

  it('an API node does not poll: due rows wait until handed over, and a row handed over three times is one BullMQ job', async () => {
    expect(bull.enabled).toBe(true);
    const rows = await Promise.all(
      Array.from({ length: 20 }, (_, i) => enqueue({ type: 'test.count', payload: { key: `once-${i}` } })),
    );
    await sleep(400);
    expect(await repo().countBy({ status: 'queued' })).toBe(20);
    expect(await bull.dispatch()).toBe(20);
    await bull.dispatch();
    await bull.dispatch();
    const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'completed');
    expect(counts.waiting + counts.delayed + counts.active + counts.completed).toBe(20);
    const job = await queue.getJob(`j${rows[0].id}-${rows[0].runAt.getTime()}-0`);
    expect(job?.name).toBe('test.count');
    expect(job?.data).toEqual({ id: rows[0].id, payload: { key: 'once-0' } });
  });

  it('the worker runs each handed-over row once, and its repeatable sweep hands over the rest', async () => {
    await bull.startWorker();
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every])).toEqual([[SWEEP_JOB, 100]]);
    // Rows enqueued without a nudge are found by the sweep.
    await enqueue({ type: 'test.count', payload: { key: 'swept' } });
    await waitFor('every row is done', async () => (await repo().countBy({ status: 'done' })) === 21);
    for (let i = 0; i < 20; i++) expect(calls.get(`once-${i}`)).toBe(1);
    expect(calls.get('swept')).toBe(1);
  });

  it('the nudge after a commit hands a job over at once', async () => {
    const row = await enqueue({ type: 'test.count', payload: { key: 'nudged' } });
    t.app.get(JobsRunner).nudge();
    await waitFor(
      'the nudged row is done',
      async () => (await repo().findOneByOrFail({ id: row.id })).status === 'done',
    );
    expect(calls.get('nudged')).toBe(1);
  });

  it('a reminder due later waits for its time, then runs once', async () => {
    const row = await enqueue({
      type: 'test.count',
      payload: { key: 'later' },
      runAt: new Date(t.clock.now().getTime() + 3600_000),
    });
    await sleep(600);
    expect(calls.get('later')).toBeUndefined();
    expect((await repo().findOneByOrFail({ id: row.id })).status).toBe('queued');
    t.clock.advance(3601);
    await waitFor('the reminder ran', async () => (await repo().findOneByOrFail({ id: row.id })).status === 'done');
    await sleep(400);
    expect(calls.get('later')).toBe(1);
  });

  it('a failure is retried by the runner with its back-off, not by BullMQ', async () => {
    const row = await enqueue({ type: 'test.count', payload: { key: 'flaky', failTimes: 1 } });
    await waitFor(
      'the first attempt failed',
      async () => (await repo().findOneByOrFail({ id: row.id })).attempts === 1,
    );
    const failed = await repo().findOneByOrFail({ id: row.id });
    expect(failed.status).toBe('queued');
    expect(failed.lastError).toBe('flaky failed on attempt 1');
    expect(failed.runAt.getTime()).toBeGreaterThan(t.clock.now().getTime() + 29_000);
    await sleep(400);
    expect(calls.get('flaky')).toBe(1);
    t.clock.advance(3600);
    await waitFor('the retry ran', async () => (await repo().findOneByOrFail({ id: row.id })).status === 'done');
    expect(calls.get('flaky')).toBe(2);
  });

  it('a row left running by a worker that died comes back after its lease and runs once more', async () => {
    const row = await enqueue({ type: 'test.count', payload: { key: 'orphan' } });
    // As a killed worker leaves it: claimed, its lease last renewed a minute ago.
    await repo().update(
      { id: row.id },
      { status: 'running', lockedBy: 'gone:1:dead', lockedAt: new Date(t.clock.now().getTime() - 60_000) },
    );
    await waitFor('the orphan ran', async () => (await repo().findOneByOrFail({ id: row.id })).status === 'done');
    const done = await repo().findOneByOrFail({ id: row.id });
    // The interruption is counted apart: it spends none of the job's attempts.
    expect(done).toMatchObject({ attempts: 0, interruptions: 1 });
    expect(calls.get('orphan')).toBe(1);
  });

  it('a row whose BullMQ job came while a dead worker still held it runs once its lease is out (no stale job id blocks it)', async () => {
    // A worker claimed the row and died; BullMQ's stalled check gave the job to another worker before the row's lease
    // ran out, so that run found the row still held and ended without running it (the CI's stuck seal of stop 29).
    const row = await repo().save(
      repo().create({
        type: 'test.count',
        payload: { key: 'held' },
        status: 'running',
        runAt: t.clock.now(),
        lockedBy: 'gone:2:dead',
        lockedAt: t.clock.now(),
        createdAt: t.clock.now(),
        updatedAt: t.clock.now(),
      }),
    );
    const early = bullJobOf(row);
    const handedOver = early.opts.jobId;
    await queue.add(early.name, early.data, early.opts);
    await waitFor('the early delivery ended', async () =>
      ['completed', 'unknown'].includes(await queue.getJobState(handedOver)),
    );
    expect(calls.get('held')).toBeUndefined();
    // The lease runs out: the sweep queues the row again and hands it over; it must run, once.
    await repo().update({ id: row.id }, { lockedAt: new Date(t.clock.now().getTime() - 60_000) });
    await waitFor('the held row ran', async () => (await repo().findOneByOrFail({ id: row.id })).status === 'done');
    expect(await repo().findOneByOrFail({ id: row.id })).toMatchObject({ attempts: 0, interruptions: 1 });
    expect(calls.get('held')).toBe(1);
  });

  it('login throttling counts in Redis, shared by every node', async () => {
    for (let i = 0; i < 5; i++) await t.http.get('/consumers/nobody/key-auth').auth('nobody', `wrong-${i}`).expect(401);
    const blocked = await t.http.get('/consumers/nobody/key-auth').auth('nobody', 'wrong-6').expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const client = new Redis(redis.url);
    try {
      expect(await client.zcard('esign:login:user:nobody')).toBe(5);
      const ttl = await client.ttl('esign:login:user:nobody');
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(900);
    } finally {
      client.disconnect();
    }
    expect(await t.db.getRepository(LoginFailureEntity).count()).toBe(0);
  });
});
