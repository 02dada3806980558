/**
 * Signing throughput of the scale-out deployment, one node against two (tests/bench/scale-out.mjs runs it for
 * `npm run bench`). Run from the repository root, after `npm run build -w api`:
 *
 *   npx ts-node --transpile-only -P api/tsconfig.json api/test/scale-out/throughput.ts [--json FILE]
 *
 * Starts MariaDB, Redis and S3 (s3rver) once with the harness of cluster.ts; then for each configuration
 *
 *   1 node  = 1 API node (api/dist/main.js) + 1 worker (api/dist/worker.js) behind nginx
 *   2 nodes = 2 API nodes + 2 workers behind nginx
 *
 * a fresh database on that MariaDB server (and its own Redis database and bucket), the first API node alone first (it
 * migrates and seeds the demo organisation), the others after it, nginx in front. Through nginx: sign in as demo,
 * create BENCH_SIGNATURES requests (default 40), each with one e-Signature signer and no OTP on normal.pdf, process
 * them and collect the sign tokens; BENCH_WARMUP (default 2) signatures per API node are signed and sealed first, as
 * each node's and worker's first ones are slower (none of this is timed). Then the clock starts and every signer goes
 * the signing page's path (reference, signer_details opened and signing, init ?method=2, esignature with a drawn PNG),
 * BENCH_CONCURRENCY (default 8) at a time. Measured:
 *
 *   accepted/s   signatures over the time until every esignature POST was answered 200
 *   completed/s  signatures over the time until every request is `completed` (sealed by the workers; polled in the
 *                database)
 *   p50, p95     of the esignature POST's latency
 *
 * Prints a Markdown table and the machine, writes the results as JSON to FILE with --json. Exit code 1 on any failure,
 * with the log tails of the configuration's processes. Everything started is stopped (stopAll()) however it ends.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { mysqlUrl } from '../support/mariadb-server';
import { tokenOf, uploadOk } from '../support/requests';
import { SIGNATURE_PNG } from '../support/signing';
import type { TestApp } from '../support/test-app';
import {
  createDatabase,
  freePort,
  startApiNode,
  startMariaDb,
  startNginx,
  startRedis,
  startS3,
  startWorker,
  stopAll,
  type ApiNode,
  type Logged,
  type MariaDbServer,
  type NginxServer,
  type RedisServer,
  type S3Server,
  type Worker,
} from './cluster';
import { cpuByTier, perSignature, pin, pinRest, TIERS, unpinAll, type Tier } from './cpu-tiers';

const ORG = 'demo';
const FIXTURE = 'normal.pdf';
const SIGNATURES = positive('BENCH_SIGNATURES', 40);
const CONCURRENCY = positive('BENCH_CONCURRENCY', 8);
/** Signatures per API node before the clock starts (each node's and worker's first signing and sealing is slower). */
const WARMUP_PER_NODE = positive('BENCH_WARMUP', 2, 0);
/** How long the workers may take to seal everything after the last signature was accepted. */
const COMPLETE_TIMEOUT_MS = 180_000;
/**
 * The pinned runs (taskset): API node i on core i, everything else (workers, MariaDB, Redis, nginx, s3rver, this load
 * generator) on the last core. With one node that is a node's core against the rest's; with two nodes on two cores the
 * second node shares the last core with the rest (the machine has no third).
 */
const PIN = os.cpus().length >= 2 && process.env.BENCH_PIN !== '0';
const CONFIGURATIONS: { name: string; nodes: number; pinned: boolean }[] = [
  { name: '1 node', nodes: 1, pinned: false },
  { name: '2 nodes', nodes: 2, pinned: false },
  ...(PIN
    ? [
        { name: '1 node, pinned', nodes: 1, pinned: true },
        { name: '2 nodes, pinned', nodes: 2, pinned: true },
      ]
    : []),
];

export interface Result {
  configuration: string;
  apiNodes: number;
  workers: number;
  signatures: number;
  concurrency: number;
  /** Signatures before the clock started (not counted). */
  warmup: number;
  /** Creating, processing the requests, collecting the tokens and the warm-up (not part of the figures). */
  setupSeconds: number;
  acceptedSeconds: number;
  completedSeconds: number;
  acceptedPerSecond: number;
  completedPerSecond: number;
  esignatureP50Ms: number;
  esignatureP95Ms: number;
  pinned: boolean;
  /** CPU milliseconds per signature (accepted and completed) of each tier over the timed run (cpu-tiers.ts). */
  cpuMsPerSignature: Record<Tier, number>;
}

function positive(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, not ${raw}`);
  return n;
}

function jsonPath(argv: string[]): string | null {
  const i = argv.indexOf('--json');
  if (i < 0) return null;
  const file = argv[i + 1];
  if (!file || file.startsWith('--')) throw new Error('--json needs a file name');
  return file;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `task` for 0..count-1, at most `limit` at a time; the first failure rejects (the rest still finish). */
async function pool(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (next < count && failure === null) {
      const i = next++;
      try {
        await task(i);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  if (failure !== null) throw failure;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** A failure that carries the log tails of the processes of the configuration that failed. */
class BenchFailure extends Error {}

function withLogs(err: unknown, what: string, processes: Logged[]): BenchFailure {
  const tails = processes.map((p) => `--- ${p.logPath}\n${p.logTail(40)}`).join('\n');
  return new BenchFailure(`${what}: ${(err as Error)?.stack ?? String(err)}\n${tails}`);
}

async function expectOk(res: request.Response, what: string): Promise<request.Response> {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body ?? res.text)}`);
  return res;
}

async function runConfiguration(
  config: { name: string; nodes: number; pinned: boolean },
  index: number,
  shared: { mariadb: MariaDbServer; redis: RedisServer; s3: S3Server },
): Promise<Result> {
  const { mariadb, redis, s3 } = shared;
  const databaseUrl = await createDatabase(mariadb, `bench_${index + 1}_${Date.now().toString(36)}`);
  // Its own bucket and Redis database: nothing of the previous configuration (BullMQ's job ids, stored objects) is seen.
  const bucket = `esign-bench-${index + 1}`;
  const s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  try {
    await s3Client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3Client.destroy();
  }
  const nginxPort = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url.replace(/\/\d+$/, `/${index + 1}`),
    ...s3.env,
    S3_BUCKET: bucket,
    PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
    TRUSTED_PROXIES: 'loopback',
    JOBS_POLL_MS: '200',
  };
  const nodes: ApiNode[] = [];
  const workers: Worker[] = [];
  let nginx: NginxServer | null = null;
  let db: Connection | null = null;
  const processes = (): Logged[] => [...nodes, ...workers, ...(nginx ? [nginx] : [])];
  try {
    // The first node runs the migrations and seeds the demo organisation; the others start on the migrated schema.
    nodes.push(await startApiNode(`api-${index + 1}-1`, env));
    const others = await Promise.all([
      ...Array.from({ length: config.nodes - 1 }, (_, i) => startApiNode(`api-${index + 1}-${i + 2}`, env)),
      ...Array.from({ length: config.nodes }, (_, i) => startWorker(env, `worker-${index + 1}-${i + 1}`)),
    ]);
    nodes.push(...(others.slice(0, config.nodes - 1) as ApiNode[]));
    workers.push(...(others.slice(config.nodes - 1) as Worker[]));
    nginx = await startNginx(
      nodes.map((n) => n.port),
      { port: nginxPort },
    );
    db = await createConnection(mysqlUrl(databaseUrl));
    const count = async (sql: string) => Number((await db!.query<RowDataPacket[]>(sql))[0][0].n);

    const lb = request(nginx.url);
    const t = { http: lb } as unknown as TestApp; // the support helpers use only `http`
    const signIn = await expectOk(await lb.get(`/consumers/${ORG}/key-auth`).auth('demo', 'demo1234'), 'sign-in');
    const key = signIn.body.data[0].key as string;

    // Set-up, not timed: the warm-up's and SIGNATURES requests with one e-Signature signer each, processed (the
    // invitation is sent).
    const warmup = WARMUP_PER_NODE * config.nodes;
    const total = warmup + SIGNATURES;
    const setupStart = performance.now();
    const refIds: number[] = new Array(total);
    await pool(total, CONCURRENCY, async (i) => {
      const up = await uploadOk(t, key, ORG, {
        fixture: FIXTURE,
        otpRequired: false,
        recipients: [
          {
            name: `Bench Signer ${i + 1}`,
            email: `signer${i + 1}@example.in`,
            phoneNumber: `98765${String(i).padStart(5, '0')}`,
            observer: false,
            signature_type: 'e-Signature',
          },
        ],
      });
      await expectOk(
        await lb
          .post('/v1/process')
          .set('apikey', key)
          .send({ orgId: ORG, data: [{ refId: up.refId, order: 1, pageNo: [1] }] }),
        `process ${up.refId}`,
      );
      refIds[i] = up.refId;
    });
    const tokens = new Map<number, string>();
    for (let offset = 0; tokens.size < total; offset += 500) {
      const list = await expectOk(
        await lb.get(`/v1/request_all/${ORG}?limit=500&offset=${offset}`).set('apikey', key),
        'request_all',
      );
      const items = list.body.data as { refId: number; data: { order: number; sign_url: string | null }[] }[];
      for (const item of items) {
        const signer = item.data.find((p) => p.order === 1 && p.sign_url);
        if (signer) tokens.set(item.refId, tokenOf(signer.sign_url!));
      }
      if (items.length < 500) break;
    }
    const missing = refIds.filter((r) => !tokens.has(r));
    if (missing.length) throw new Error(`no sign link for ${missing.length} request(s), e.g. ${missing[0]}`);

    // The signing page's path for request i; answers the esignature POST's latency.
    const png = `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}`;
    const sign = async (i: number): Promise<number> => {
      const refId = refIds[i];
      const h = { 'x-sign-token': tokens.get(refId)! };
      const base = `${ORG}/${refId}/1`;
      const ref = await expectOk(await lb.get(`/v1/reference/${base}`).set(h), `reference ${refId}`);
      const requestId = ref.body.request.requestId as string;
      await expectOk(
        await lb
          .post(`/v1/signer_details/${base}`)
          .set(h)
          .send({ status: 'opened', userAgent: { OS: 'Linux', Browser: 'bench' } }),
        `signer_details opened ${refId}`,
      );
      await expectOk(
        await lb.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }),
        `signer_details signing ${refId}`,
      );
      await expectOk(await lb.get(`/v1/init/${ORG}/${requestId}?method=2`).set(h), `init ${refId}`);
      const before = performance.now();
      const res = await lb.post(`/v1/esignature/${ORG}/${requestId}`).set(h).send({ file: png });
      const ms = performance.now() - before;
      await expectOk(res, `esignature ${refId}`);
      return ms;
    };
    /** Waits until `n` requests are completed (sealed by the workers); fails on a failed job. */
    const completedAll = async (n: number) => {
      const deadline = Date.now() + COMPLETE_TIMEOUT_MS;
      for (;;) {
        const completed = await count("SELECT COUNT(*) AS n FROM requests WHERE status = 'completed'");
        if (completed >= n) return;
        const failed = await count("SELECT COUNT(*) AS n FROM jobs WHERE status = 'failed'");
        if (failed > 0) {
          const [rows] = await db!.query<RowDataPacket[]>(
            "SELECT id, type, attempts, last_error FROM jobs WHERE status = 'failed' LIMIT 3",
          );
          throw new Error(`${failed} job(s) failed: ${JSON.stringify(rows)}`);
        }
        if (Date.now() > deadline) {
          throw new Error(
            `only ${completed} of ${n} requests completed ${COMPLETE_TIMEOUT_MS / 1000} s after the signatures`,
          );
        }
        await sleep(100);
      }
    };

    // Warm-up, not timed: a few signatures per node (nginx's round robin spreads them), sealed.
    await pool(warmup, config.nodes, async (i) => void (await sign(i)));
    await completedAll(warmup);
    const setupSeconds = (performance.now() - setupStart) / 1000;

    if (config.pinned) {
      const last = os.cpus().length - 1;
      nodes.forEach((node, i) => pin(node.pid, String(Math.min(i, last))));
      pinRest(
        nodes.map((n) => n.pid),
        String(last),
      );
    }

    // The clock: every signer signs, CONCURRENCY at a time, until every request is sealed.
    const latencies: number[] = [];
    const cpuBefore = cpuByTier();
    const started = performance.now();
    await pool(SIGNATURES, CONCURRENCY, async (i) => void latencies.push(await sign(warmup + i)));
    const acceptedSeconds = (performance.now() - started) / 1000;
    await completedAll(total);
    const completedSeconds = (performance.now() - started) / 1000;
    const cpuMsPerSignature = perSignature(cpuBefore, cpuByTier(), SIGNATURES);

    latencies.sort((a, b) => a - b);
    return {
      configuration: config.name,
      apiNodes: config.nodes,
      workers: config.nodes,
      signatures: SIGNATURES,
      concurrency: CONCURRENCY,
      warmup,
      setupSeconds: round(setupSeconds, 2),
      acceptedSeconds: round(acceptedSeconds, 2),
      completedSeconds: round(completedSeconds, 2),
      acceptedPerSecond: round(SIGNATURES / acceptedSeconds, 2),
      completedPerSecond: round(SIGNATURES / completedSeconds, 2),
      esignatureP50Ms: round(percentile(latencies, 50), 0),
      esignatureP95Ms: round(percentile(latencies, 95), 0),
      pinned: config.pinned,
      cpuMsPerSignature,
    };
  } catch (err) {
    throw withLogs(err, config.name, processes());
  } finally {
    if (config.pinned) unpinAll();
    await db?.end().catch(() => undefined);
    // This configuration's processes go before the next one starts (MariaDB, Redis and S3 stay).
    await nginx?.stop();
    await Promise.all([...nodes, ...workers].map((p) => p.stop()));
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    model: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
  };
}

function table(results: Result[]): string {
  const lines = [
    '| configuration | signatures | accepted/s | completed/s | p50 ms | p95 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.configuration} | ${r.signatures} | ${r.acceptedPerSecond.toFixed(2)} | ${r.completedPerSecond.toFixed(2)} | ` +
        `${r.esignatureP50Ms} | ${r.esignatureP95Ms} |`,
    );
  }
  return lines.join('\n');
}

/** CPU milliseconds per signature of each tier, per configuration. */
function cpuTable(results: Result[]): string {
  const lines = [`| configuration | ${TIERS.join(' | ')} |`, `| --- |${TIERS.map(() => ' ---: |').join('')}`];
  for (const r of results)
    lines.push(`| ${r.configuration} | ${TIERS.map((t) => r.cpuMsPerSignature[t].toFixed(1)).join(' | ')} |`);
  return lines.join('\n');
}

/**
 * The model from the one-node run's CPU per signature: with each tier on cores of its own (N API nodes and W workers
 * one core each, one core each for MariaDB, Redis and nginx), a tier serves at most cores × 1000 / (its CPU ms per
 * signature) signatures/s, and the deployment the least of them. The load generator and s3rver are outside it (a
 * client, and a stand-in for S3).
 */
export function model(one: Result, shapes = [1, 2, 4, 8]): { n: number; perSecond: number; saturates: Tier }[] {
  const served: Tier[] = ['API nodes', 'workers', 'MariaDB', 'Redis', 'nginx'];
  return shapes.map((n) => {
    const cores: Record<string, number> = { 'API nodes': n, workers: n, MariaDB: 1, Redis: 1, nginx: 1 };
    let best = { perSecond: Infinity, saturates: served[0] };
    for (const tier of served) {
      const ms = one.cpuMsPerSignature[tier];
      const perSecond = ms > 0 ? (cores[tier] * 1000) / ms : Infinity;
      if (perSecond < best.perSecond) best = { perSecond, saturates: tier };
    }
    return { n, perSecond: round(best.perSecond, 1), saturates: best.saturates };
  });
}

async function main(): Promise<void> {
  const json = jsonPath(process.argv.slice(2));
  const started = performance.now();
  const results: Result[] = [];
  try {
    const [mariadb, redis, s3] = await Promise.all([startMariaDb(), startRedis(), startS3()]);
    for (const [i, config] of CONFIGURATIONS.entries()) {
      console.error(`scale-out throughput: ${config.name} (${SIGNATURES} signatures, concurrency ${CONCURRENCY})…`);
      const result = await runConfiguration(config, i, { mariadb, redis, s3 });
      console.error(
        `  set-up ${result.setupSeconds} s; accepted in ${result.acceptedSeconds} s, completed in ${result.completedSeconds} s`,
      );
      results.push(result);
    }
  } finally {
    await stopAll();
  }
  const m = machine();
  console.log(table(results));
  console.log(`\nCPU ms per signature, by tier (the timed run's CPU time over its ${SIGNATURES} signatures):\n`);
  console.log(cpuTable(results));
  const one = results.find((r) => r.configuration === '1 node');
  if (one) {
    console.log(
      '\nModel (one-node CPU per signature; N API nodes and N workers on a core each, MariaDB, Redis, nginx on one):',
    );
    for (const m of model(one)) console.log(`  N = ${m.n}: ${m.perSecond} signatures/s, ${m.saturates} saturate first`);
  }
  console.log(`\nmachine: ${m.cores} cores, ${m.model}, ${m.memoryGiB} GiB; ${m.platform}; node ${m.node}`);
  const seconds = round((performance.now() - started) / 1000, 1);
  console.log(`whole run: ${seconds} s`);
  if (json) {
    const modelled = one ? model(one) : [];
    writeFileSync(json, `${JSON.stringify({ machine: m, seconds, results, model: modelled }, null, 2)}\n`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`scale-out throughput failed: ${err instanceof BenchFailure ? err.message : (err as Error)?.stack}`);
    process.exit(1);
  },
);
