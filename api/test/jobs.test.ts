import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpAdapterHost } from '@nestjs/core';
import { In, type DataSource } from 'typeorm';
import { SystemClock } from '../src/common/clock';
import { loadConfig } from '../src/config/app-config';
import { createDataSource } from '../src/database/data-source';
import { JobEntity } from '../src/modules/jobs/job.entity';
import type { JobContext } from '../src/modules/jobs/job.types';
import { JobsRunner, retryDelayMs } from '../src/modules/jobs/jobs.runner';
import { JobsService } from '../src/modules/jobs/jobs.service';
import { TEST_HANG_JOB } from '../src/modules/jobs/test-jobs';
import { freePort } from './support/mariadb-server';
import { engine, freshDatabase, startTestApp, type TestApp } from './support/test-app';

const api = join(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

describe('durable jobs', () => {
  let t: TestApp;
  let jobs: JobsService;
  let runner: JobsRunner;
  const calls = new Map<string, number>();
  const count = (key: string) => {
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    return n;
  };
  const repo = () => t.db.getRepository(JobEntity);
  const reload = (id: number) => repo().findOneByOrFail({ id });
  const enqueue = (job: Parameters<JobsService['enqueue']>[1]) => t.db.transaction((m) => jobs.enqueue(m, job));

  beforeAll(async () => {
    t = await startTestApp();
    jobs = t.app.get(JobsService);
    runner = t.app.get(JobsRunner);
    runner.register<{ key: string; failTimes?: number }>('test.flaky', async ({ key, failTimes = 0 }) => {
      const n = count(key);
      if (n <= failTimes) throw new Error(`${key} failed on attempt ${n}`);
    });
    runner.register<{ key: string; runAt?: string }>('test.recurring', async ({ key, runAt }, ctx) => {
      count(key);
      // Enqueueing its own key while it runs returns this very job: a running job holds its key.
      const same = await jobs.enqueue(ctx.manager, { type: 'test.recurring', payload: {}, dedupeKey: key });
      calls.set(`${key}:held-by-self`, same.id === ctx.job.id && same.status === 'running' ? 1 : 0);
      if (runAt) ctx.reschedule(new Date(runAt), { key });
    });
  });
  afterEach(() => t.db.createQueryBuilder().delete().from(JobEntity).execute());
  afterAll(() => t.close());

  it('does not poll under NODE_ENV=test unless asked (tests run due jobs with drain())', () => {
    expect(t.config.jobs.runner).toBe(false);
    expect(runner.running).toBe(false);
  });

  it('retries a failing handler with exponential backoff on the clock, then marks it done', async () => {
    const job = await enqueue({ type: 'test.flaky', payload: { key: 'flaky', failTimes: 2 } });
    expect(job).toMatchObject({ status: 'queued', attempts: 0, maxAttempts: 5 });

    expect(await runner.drain()).toBe(1);
    let row = await reload(job.id);
    expect(row).toMatchObject({
      status: 'queued',
      attempts: 1,
      lastError: 'flaky failed on attempt 1',
      lockedBy: null,
    });
    let wait = row.runAt.getTime() - t.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(30_000);
    expect(wait).toBeLessThanOrEqual(33_000);

    // Not due before the backoff has passed.
    expect(await runner.drain()).toBe(0);
    t.clock.advance(29);
    expect(await runner.drain()).toBe(0);
    t.clock.advance(4);
    expect(await runner.drain()).toBe(1);
    row = await reload(job.id);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, lastError: 'flaky failed on attempt 2' });
    wait = row.runAt.getTime() - t.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(60_000);
    expect(wait).toBeLessThanOrEqual(66_000);

    t.clock.advance(59);
    expect(await runner.drain()).toBe(0);
    t.clock.advance(7);
    expect(await runner.drain()).toBe(1);
    expect(await reload(job.id)).toMatchObject({ status: 'done', attempts: 2, lastError: null, lockedBy: null });
    expect(calls.get('flaky')).toBe(3);
  });

  it('grows the delay exponentially up to an hour, with at most 10 % jitter', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, () => 0))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
    expect(retryDelayMs(8, () => 0)).toBe(3_600_000);
    expect(retryDelayMs(20, () => 0)).toBe(3_600_000);
    expect(retryDelayMs(1, () => 0.999)).toBeLessThanOrEqual(33_000);
  });

  it('marks a job that always fails `failed` with its last error after maxAttempts, and never runs it again', async () => {
    const job = await enqueue({ type: 'test.flaky', payload: { key: 'doomed', failTimes: 99 }, maxAttempts: 3 });
    for (let i = 0; i < 6; i++) {
      await runner.drain();
      t.clock.advance(3600);
    }
    expect(await reload(job.id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: 'doomed failed on attempt 3',
      dedupeKey: null,
    });
    expect(calls.get('doomed')).toBe(3);
  });

  it('leaves no job when the transaction that enqueued it rolls back', async () => {
    await expect(
      t.db.transaction(async (m) => {
        await jobs.enqueue(m, { type: 'test.flaky', payload: { key: 'rolled-back' } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await repo().count()).toBe(0);
    await t.db.transaction((m) => jobs.enqueue(m, { type: 'test.flaky', payload: { key: 'committed' } }));
    expect(await repo().count()).toBe(1);
    expect(await runner.drain()).toBe(1);
    expect(calls.get('rolled-back')).toBeUndefined();
    expect(calls.get('committed')).toBe(1);
  });

  it('keeps one queued or running job per dedupe key; a finished or cancelled job frees the key', async () => {
    const first = await enqueue({ type: 'test.flaky', payload: { key: 'dd' }, dedupeKey: 'remind:42' });
    const again = await enqueue({ type: 'test.flaky', payload: { key: 'other' }, dedupeKey: 'remind:42' });
    expect(again.id).toBe(first.id);
    const inOneTx = await t.db.transaction(async (m) => {
      const a = await jobs.enqueue(m, { type: 'test.flaky', payload: { key: 'x' }, dedupeKey: 'expire:7' });
      const b = await jobs.enqueue(m, { type: 'test.flaky', payload: { key: 'y' }, dedupeKey: 'expire:7' });
      return [a.id, b.id];
    });
    expect(inOneTx[0]).toBe(inOneTx[1]);
    expect(await repo().count()).toBe(2);

    // Cancelling deletes the queued job; the key can be used again.
    expect(await t.db.transaction((m) => jobs.cancel(m, 'expire:7'))).toBe(true);
    expect(await t.db.transaction((m) => jobs.cancel(m, 'expire:7'))).toBe(false);
    const fresh = await enqueue({ type: 'test.flaky', payload: { key: 'x2' }, dedupeKey: 'expire:7' });
    expect(fresh.id).not.toBe(inOneTx[0]);

    // A job that finished gives its key up.
    expect(await runner.drain()).toBe(2);
    expect(await reload(first.id)).toMatchObject({ status: 'done', dedupeKey: null });
    const next = await enqueue({ type: 'test.flaky', payload: { key: 'dd2' }, dedupeKey: 'remind:42' });
    expect(next.id).not.toBe(first.id);
    expect(next.status).toBe('queued');

    // So does one that failed for good.
    const doomed = await enqueue({
      type: 'test.flaky',
      payload: { key: 'd', failTimes: 9 },
      dedupeKey: 'd',
      maxAttempts: 1,
    });
    await runner.drain();
    expect(await reload(doomed.id)).toMatchObject({ status: 'failed', dedupeKey: null });
    expect((await enqueue({ type: 'test.flaky', payload: { key: 'd' }, dedupeKey: 'd' })).id).not.toBe(doomed.id);
  });

  it('lets a running job hold its key and reschedule itself (recurring reminders), until cancelled', async () => {
    const runAt = new Date(t.clock.now().getTime() + 12 * 3600_000);
    const job = await enqueue({
      type: 'test.recurring',
      payload: { key: 'rec', runAt: runAt.toISOString() },
      dedupeKey: 'rec',
    });
    expect(await runner.drain()).toBe(1);
    expect(calls.get('rec:held-by-self')).toBe(1);
    expect(await reload(job.id)).toMatchObject({ status: 'queued', runAt, dedupeKey: 'rec', attempts: 0 });
    expect(await repo().count()).toBe(1);

    t.clock.advance(12 * 3600);
    expect(await runner.drain()).toBe(1);
    expect(calls.get('rec')).toBe(2);
    // The second run got the payload without runAt, so it did not reschedule: done, key free.
    expect(await reload(job.id)).toMatchObject({ status: 'done', dedupeKey: null });

    const other = await enqueue({
      type: 'test.recurring',
      payload: { key: 'rec2', runAt: runAt.toISOString() },
      dedupeKey: 'rec2',
      runAt,
    });
    expect(await t.db.transaction((m) => jobs.cancel(m, 'rec2'))).toBe(true);
    t.clock.advance(24 * 3600);
    expect(await runner.drain()).toBe(0);
    expect(await repo().findOneBy({ id: other.id })).toBeNull();
  });

  it('never lets two runners take the same job', async () => {
    const second = new JobsRunner(t.db, t.clock, t.config, t.app.get(HttpAdapterHost));
    const seen: number[] = [];
    const byRunner = new Map<string, number>();
    const handler = async (_payload: object, ctx: JobContext) => {
      seen.push(ctx.job.id);
      byRunner.set(ctx.job.lockedBy!, (byRunner.get(ctx.job.lockedBy!) ?? 0) + 1);
      await sleep(2);
    };
    runner.register('test.parallel', handler);
    second.register('test.parallel', handler);
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await enqueue({ type: 'test.parallel', payload: { i } })).id);

    const [a, b] = await Promise.all([runner.drain(), second.drain()]);
    expect(a + b).toBe(30);
    expect([...seen].sort((x, y) => x - y)).toEqual(ids);
    expect(byRunner.get(runner.id)).toBeGreaterThan(0);
    expect(byRunner.get(second.id)).toBeGreaterThan(0);
    expect(await repo().countBy({ status: 'done' })).toBe(30);
  });

  it('queues again a running job whose runner stopped renewing its lease, and only that one', async () => {
    const now = t.clock.now();
    const lease = t.config.jobs.leaseSeconds;
    const row = (lockedAt: Date, key: string) =>
      repo().insert({
        type: 'test.flaky',
        payload: { key },
        status: 'running',
        runAt: now,
        attempts: 0,
        maxAttempts: 5,
        lockedBy: 'dead-node:1:abcd',
        lockedAt,
        createdAt: now,
        updatedAt: now,
      });
    await row(new Date(now.getTime() - (lease + 1) * 1000), 'orphan');
    await row(new Date(now.getTime() - 10_000), 'alive');

    expect(await runner.drain()).toBe(1);
    expect(calls.get('orphan')).toBe(1);
    expect(calls.get('alive')).toBeUndefined();
    const [orphan, alive] = await repo().find({ order: { id: 'ASC' } });
    // The interrupted run is counted apart, not as an attempt.
    expect(orphan).toMatchObject({ status: 'done', attempts: 0, interruptions: 1 });
    expect(alive).toMatchObject({ status: 'running', lockedBy: 'dead-node:1:abcd' });

    t.clock.advance(lease);
    expect(await runner.drain()).toBe(1);
    expect(calls.get('alive')).toBe(1);
  });

  it('does not spend attempts on interruptions: a job on its last attempt, interrupted 49 times in a row, still runs', async () => {
    const lease = t.config.jobs.leaseSeconds;
    const job = await enqueue({ type: 'test.flaky', payload: { key: 'survivor', failTimes: 0 }, maxAttempts: 2 });
    await repo().update(job.id, { attempts: 1, lastError: 'a failure before' });
    const times = t.config.jobs.maxInterruptions - 1;
    for (let i = 0; i < times; i++) {
      // Claimed by a runner that then dies: its lease runs out.
      await repo().update(job.id, { status: 'running', lockedBy: `dead-${i}`, lockedAt: t.clock.now() });
      t.clock.advance(lease + 1);
      await runner.recoverStale();
    }
    expect(await reload(job.id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      interruptions: times,
      lastError: `interrupted ${times}/${t.config.jobs.maxInterruptions}: runner dead-${times - 1} stopped while running it`,
    });
    expect(await runner.drain()).toBe(1);
    expect(calls.get('survivor')).toBe(1);
    expect(await reload(job.id)).toMatchObject({ status: 'done', attempts: 1, interruptions: times });
  });

  it('fails a job whose process died under it JOBS_MAX_INTERRUPTIONS times in a row; an outcome resets the count', async () => {
    const limit = t.config.jobs.maxInterruptions;
    const lease = t.config.jobs.leaseSeconds;
    const interrupt = async (id: number, before: number) => {
      await repo().update(id, { status: 'running', lockedBy: 'dead', lockedAt: t.clock.now(), interruptions: before });
      t.clock.advance(lease + 1);
      await runner.recoverStale();
    };
    const poison = await enqueue({ type: 'test.flaky', payload: { key: 'poison' }, dedupeKey: 'poison' });
    await interrupt(poison.id, limit - 1);
    expect(await reload(poison.id)).toMatchObject({
      status: 'failed',
      attempts: 0,
      interruptions: limit,
      dedupeKey: null,
      lastError: `interrupted ${limit}/${limit}: runner dead stopped while running it`,
    });
    expect(await runner.drain()).toBe(0);
    expect(calls.get('poison')).toBeUndefined();

    // A run that ends with a failure of its own: the interruptions before it were in a row no more.
    const flaky = await enqueue({ type: 'test.flaky', payload: { key: 'reset', failTimes: 1 } });
    await interrupt(flaky.id, limit - 2);
    expect(await reload(flaky.id)).toMatchObject({ status: 'queued', interruptions: limit - 1 });
    expect(await runner.drain()).toBe(1);
    expect(await reload(flaky.id)).toMatchObject({ status: 'queued', attempts: 1, interruptions: 0 });
    await interrupt(flaky.id, 0);
    expect(await reload(flaky.id)).toMatchObject({ status: 'queued', attempts: 1, interruptions: 1 });
  });

  it('forgets the interruptions of a job that committed a step: a job done in steps across short lives is no poison', async () => {
    const limit = t.config.jobs.maxInterruptions;
    const seen: unknown[] = [];
    runner.register('test.steps', async (_payload, ctx) => {
      seen.push((await reload(ctx.job.id)).interruptions);
      await ctx.progressed();
      // Still running, the step committed: the count is back to 0 in the row, so the next death is the first again.
      seen.push(await reload(ctx.job.id).then((j) => [j.status, j.interruptions]));
    });
    const job = await enqueue({ type: 'test.steps', payload: {} });
    await repo().update(job.id, { interruptions: limit - 1 });
    expect(await runner.drain()).toBe(1);
    expect(seen).toEqual([limit - 1, ['running', 0]]);
  });

  it('does not know the test-only job types unless ESIGN_TEST_JOBS=1', async () => {
    const job = await enqueue({ type: TEST_HANG_JOB, payload: { file: '/nonexistent', hangStarts: 1 } });
    expect(await runner.drain()).toBe(0);
    expect(await reload(job.id)).toMatchObject({ status: 'queued', attempts: 0 });
  });
});

describe('the polling runner', () => {
  it('runs at most `concurrency` jobs of a type at once, leaves the rest queued, and gives the free slots to others', async () => {
    const t = await startTestApp({ JOBS_RUNNER: 'on', JOBS_POLL_MS: '20' });
    try {
      const runner = t.app.get(JobsRunner);
      let running = 0;
      let most = 0;
      const log: string[] = [];
      runner.register<{ n: number }>(
        'test.cpu',
        async ({ n }) => {
          most = Math.max(most, ++running);
          log.push(`cpu ${n}`);
          await sleep(150);
          running--;
        },
        { concurrency: 1 },
      );
      runner.register<{ n: number }>('test.mail', async ({ n }) => {
        log.push(`mail ${n}`);
      });
      const jobs = t.app.get(JobsService);
      const ids = await t.db.transaction(async (m) => {
        const made = [];
        for (let n = 1; n <= 3; n++) made.push(await jobs.enqueue(m, { type: 'test.cpu', payload: { n } }));
        for (let n = 1; n <= 2; n++) made.push(await jobs.enqueue(m, { type: 'test.mail', payload: { n } }));
        return made.map((j) => j.id);
      });
      // While the first cpu job runs, the other two wait queued (not claimed) and the mails go by.
      await waitFor('the first cpu job and both mails', () => log.length >= 3, 10_000);
      expect(log.slice(0, 3).sort()).toEqual(['cpu 1', 'mail 1', 'mail 2']);
      const waiting = await t.db.getRepository(JobEntity).findBy({ id: In(ids.slice(1, 3)) });
      expect(waiting.map((j) => [j.status, j.lockedBy])).toEqual([
        ['queued', null],
        ['queued', null],
      ]);
      await waitFor('every job', () => log.length === 5, 10_000);
      expect(log.filter((x) => x.startsWith('cpu'))).toEqual(['cpu 1', 'cpu 2', 'cpu 3']);
      expect(most).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('runs due jobs by itself, and on shutdown waits for the running handler before the database closes', async () => {
    const t = await startTestApp({ JOBS_RUNNER: 'on', JOBS_POLL_MS: '20' });
    const events: string[] = [];
    t.app.get(JobsRunner).register('test.slow', async () => {
      events.push('started');
      await sleep(300);
      events.push('finished');
    });
    const job = await t.db.transaction((m) => t.app.get(JobsService).enqueue(m, { type: 'test.slow', payload: {} }));
    await waitFor('the handler started', () => events.includes('started'), 10_000);
    await t.app.close();
    expect(events).toEqual(['started', 'finished']);

    const db = createDataSource(t.config, false);
    await db.initialize();
    try {
      expect(await db.getRepository(JobEntity).findOneByOrFail({ id: job.id })).toMatchObject({
        status: 'done',
        lockedBy: null,
      });
    } finally {
      await db.destroy();
      await t.close();
    }
  });
});

/**
 * The restart test: a real server process is SIGKILLed while a job's handler runs. After a restart the job runs
 * again exactly once and ends done. On SQLite the restarted process queues the orphan at start; on MariaDB (where
 * several nodes may share the table) the orphan's lease runs out (JOBS_LEASE_SECONDS=2 here) and a runner takes it.
 */
describe('a server killed in the middle of a job', () => {
  const children: ChildProcess[] = [];
  let db: DataSource | undefined;
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.destroy();
    await drop?.();
  });

  function startServer(env: Record<string, string>): Promise<ChildProcess> {
    // The child loads the contract from source, as the tests do (its dist/ is built only by npm run build).
    const boot = [
      "const Module = require('node:module');",
      'const resolve = Module._resolveFilename;',
      `Module._resolveFilename = function (request, ...rest) { return resolve.call(this, request === '@esign/contract' ? ${JSON.stringify(join(api, 'contract/src/index.ts'))} : request, ...rest); };`,
      `require(${JSON.stringify(join(api, 'src/main.ts'))});`,
    ].join('\n');
    const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), '-e', boot], {
      cwd: api,
      env: { PATH: process.env.PATH, TS_NODE_PROJECT: join(api, 'tsconfig.json'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('e-Sign is running')) {
          clearTimeout(timer);
          resolve(child);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${output}`));
      });
    });
  }

  it('runs the job again exactly once after a restart, and it ends done', async () => {
    const database = await freshDatabase();
    drop = database.drop;
    const file = join(database.dataDir, 'test-hang.log');
    const starts = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
    const env = {
      ...database.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      JOBS_RUNNER: 'on',
      JOBS_POLL_MS: '100',
      ESIGN_TEST_JOBS: '1',
      ...(engine === 'mariadb' ? { JOBS_LEASE_SECONDS: '2' } : {}),
    };
    const first = await startServer(env);

    db = createDataSource(loadConfig({ NODE_ENV: 'test', ...database.env }), false);
    await db.initialize();
    const jobsTable = db.getRepository(JobEntity);
    const job = await db.transaction((m) =>
      new JobsService(db!, new SystemClock()).enqueue(m, { type: TEST_HANG_JOB, payload: { file, hangStarts: 1 } }),
    );

    await waitFor('the handler started in the first server', () => starts().length === 1);
    expect(await jobsTable.findOneByOrFail({ id: job.id })).toMatchObject({ status: 'running' });
    await sleep(500);
    expect(starts()).toHaveLength(1);

    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await exited;
    expect(await jobsTable.findOneByOrFail({ id: job.id })).toMatchObject({ status: 'running' });

    const second = await startServer(env);
    await waitFor('the job is done', async () => (await jobsTable.findOneByOrFail({ id: job.id })).status === 'done');
    // Ten more poll intervals: nothing runs it a third time.
    await sleep(1000);
    const lines = starts();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`started pid=${first.pid}`);
    expect(lines[1]).toBe(`started pid=${second.pid}`);
    expect(await jobsTable.findOneByOrFail({ id: job.id })).toMatchObject({
      status: 'done',
      attempts: 0,
      interruptions: 1,
      dedupeKey: null,
      lockedBy: null,
    });

    const stopped = new Promise((r) => second.once('exit', r));
    second.kill('SIGTERM');
    await stopped;
  }, 150_000);
});
