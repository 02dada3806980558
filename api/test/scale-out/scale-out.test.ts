import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { mysqlUrl } from '../support/mariadb-server';
import { runPdfVerify } from '../support/pdf-verify';
import { signAs, tokensOf } from '../support/signing';
import { createTestToken, spawnDscAgent, type RunningAgent, type TestToken } from '../support/softhsm';
import { startSmtpServer, type ReceivedMail } from '../support/smtp';
import { uploadOk } from '../support/requests';
import { RETENTION_JOB } from '../../src/modules/retention/retention.service';
import { WATCHDOG_JOB } from '../../src/modules/watchdog/watchdog.service';
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
  type NginxServer,
  type RedisServer,
  type S3Server,
  type Worker,
} from './cluster';

const ORG = 'demo';
const PIN = '5523-0917';
const ASHA = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '+91 98765 43210' };
const VIKRAM = { name: 'Vikram Shah', email: 'vikram@example.in', phoneNumber: '9123456789' };
const PRIYA = { name: 'Priya Menon', email: 'priya@example.in', phoneNumber: '9988776655' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(200);
  }
}

/**
 * The scale-out deployment of docker/compose.yml, from the same parts started directly on loopback: MariaDB, Redis,
 * an S3-compatible server (s3rver), two API nodes, one worker and nginx in front (docker/nginx/esign-proxy.conf).
 */
describe('scale-out: two API nodes, a worker, MariaDB, Redis, S3 and nginx', () => {
  let redis: RedisServer;
  let s3: S3Server;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let nodeA: ApiNode;
  let nodeB: ApiNode;
  let worker: Worker;
  let nginx: NginxServer;
  let db: Connection;
  let token: TestToken;
  let agent: RunningAgent | null = null;
  let workerMetrics = '';

  const logs = () =>
    [nodeA, nodeB, worker, nginx]
      .filter(Boolean)
      .map((p) => `--- ${p.logPath}\n${p.logTail(30)}`)
      .join('\n');
  /** The jobs and messages as they stand, and the processes' logs, for a failure message. */
  const state = async () =>
    JSON.stringify(
      {
        jobs: await rows('SELECT id, type, status, run_at, attempts, last_error FROM jobs ORDER BY id'),
        outbox: await rows('SELECT id, recipient, kind, channel, status FROM outbox_messages ORDER BY id'),
      },
      null,
      1,
    ) + `\n${logs()}`;
  const rows = async <T>(sql: string, params: unknown[] = []) =>
    (await db.query<RowDataPacket[]>(sql, params))[0] as T[];

  beforeAll(async () => {
    const [mariadb, r, s, mail] = await Promise.all([startMariaDb(), startRedis(), startS3(), startSmtpServer()]);
    [redis, s3, smtp] = [r, s, mail];
    const databaseUrl = await createDatabase(mariadb);
    db = await createConnection(mysqlUrl(databaseUrl));
    const nginxPort = await freePort();
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      ...s3.env,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
      TRUSTED_PROXIES: 'loopback',
      JOBS_POLL_MS: '500',
      JOBS_LEASE_SECONDS: '5',
    };
    // The first node runs the migrations and seeds the demo organisation; the others start on the migrated schema.
    nodeA = await startApiNode('api-a', env);
    workerMetrics = `http://127.0.0.1:${await freePort()}`;
    [nodeB, worker] = await Promise.all([
      startApiNode('api-b', env),
      startWorker({ ...env, METRICS_PORT: new URL(workerMetrics).port }),
    ]);
    nginx = await startNginx([nodeA.port, nodeB.port], { port: nginxPort });
    token = createTestToken(VIKRAM.name, 'VIKRAM', PIN);
  }, 300_000);

  afterAll(async () => {
    agent?.child.kill('SIGINT');
    token?.cleanup();
    await db?.end();
    await smtp?.close();
    await stopAll();
  });

  it('runs the whole signing flow through nginx, across nodes, through a crash of a node and of the worker', async () => {
    const lb = request(nginx.url);
    const t = { http: lb } as unknown as TestApp; // the support helpers below use only `http`

    // Ready: the database, Redis and the bucket, answered by whichever node nginx picks.
    const ready = await lb.get('/health/ready').expect(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'ok', storage: 'ok' });

    const signIn = await lb.get(`/consumers/demo/key-auth`).auth('demo', 'demo1234').expect(200);
    const key = signIn.body.data[0].key as string;
    await db.query('UPDATE organisations SET dsc_download_url = ? WHERE id = ?', ['https://example.in/signer', ORG]);

    // Staff send one request to two e-Signature signers and a DSC signer, reminders every 12 hours.
    const up = await uploadOk(t, key, ORG, {
      fixture: 'us_constitution.pdf',
      otpRequired: false,
      reminder: true,
      reminderDuration: 12,
      recipients: [
        { ...ASHA, observer: false, signature_type: 'e-Signature' },
        { ...VIKRAM, observer: false, signature_type: 'DSC' },
        { ...PRIYA, observer: false, signature_type: 'e-Signature' },
      ],
    });
    const refId = up.refId;
    await lb
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: ORG, data: [1, 2, 3].map((order) => ({ refId, order, pageNo: [order] })) })
      .expect(200);
    const tokens = await tokensOf(t, key, ORG, refId);
    expect(Object.keys(tokens)).toEqual(['1', '2', '3']);
    await until('the three invitations are delivered by the worker', () => smtp.mails.length >= 3);

    // Asha signs through nginx, and the worker applies her signature. Vikram's DSC signature below is made on the
    // document as it is then: had Asha's been applied after it, his would be discarded by design (the document it
    // covers is no longer the request's) and he would be asked to sign again, which is not what this test is about.
    // Under load her first signature (the worker's PKI set-up) took longer than his signing did (CI, 2026-11-28).
    await signAs(t, { orgId: ORG, refId, order: 1, token: tokens[1], email: ASHA.email });
    await until('Asha’s signature is applied', async () => {
      const asha = await rows<{ status: string }>('SELECT status FROM parties WHERE ref_id = ? AND party_order = 1', [
        refId,
      ]);
      return asha[0]?.status === 'completed';
    });

    // The reminder falls due: the repeatable sweep hands it to one worker, once.
    await db.query(
      "UPDATE jobs SET run_at = '2000-01-01 00:00:00' WHERE type = 'request.remind' AND status = 'queued'",
    );
    await until('the reminders are delivered', async () => {
      const sent = await rows<{ n: number }>(
        "SELECT COUNT(*) AS n FROM outbox_messages WHERE kind = 'reminder' AND channel = 'email' AND status = 'sent'",
      );
      return Number(sent[0].n) === 2;
    }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await state()}`);
    });

    // Vikram's signer agent connects to node B; his signing page's call reaches node A.
    agent = spawnDscAgent(nodeB.url, VIKRAM.email, token);
    await until(
      'the agent asks for its one-time code',
      () => agent!.output().includes('One-time code sent to'),
      60_000,
    );
    const otpMail = await rows<{ text: string }>(
      "SELECT text FROM outbox_messages WHERE recipient = ? AND channel = 'email' ORDER BY id DESC LIMIT 1",
      [VIKRAM.email],
    );
    agent.child.stdin.write(`${/\b(\d{6})\b/.exec(otpMail[0].text)![1]}\n`);
    const presence = new Redis(redis.url);
    try {
      await until(
        'node B announces the agent in Redis',
        async () => (await presence.exists(`esign:dsc:agent:${VIKRAM.email}`)) === 1,
        30_000,
      );
    } finally {
      presence.disconnect();
    }
    const onA = request(nodeA.url);
    const vikram = { 'x-sign-token': tokens[2] };
    const ref = await onA.get(`/v1/reference/${ORG}/${refId}/2`).set(vikram).expect(200);
    const requestId = ref.body.request.requestId as string;
    await onA.post(`/v1/signer_details/${ORG}/${refId}/2`).set(vikram).send({ status: 'signing' }).expect(200);
    const wrong = await onA.post(`/v1/dscToken/${ORG}/${requestId}`).set(vikram).send({ usb_token: '0000-0000' });
    expect([wrong.status, wrong.body.message]).toEqual([400, 'The USB token password is wrong.']);
    const signed = await onA.post(`/v1/dscToken/${ORG}/${requestId}`).set(vikram).send({ usb_token: PIN });
    expect([signed.status, signed.body]).toEqual([200, { code: 200, message: 'success' }]);

    // Mid-flow, node A and the worker die (SIGKILL); Priya signs through nginx, which now has node B only.
    await Promise.all([worker.kill(), nodeA.kill()]);
    await signAs(t, { orgId: ORG, refId, order: 3, token: tokens[3], email: PRIYA.email });
    await sleep(1500);
    const waiting = await rows<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')");
    expect(Number(waiting[0].n)).toBeGreaterThan(0); // nothing runs them without a worker
    const before = await rows<{ status: string }>('SELECT status FROM requests WHERE ref_id = ?', [refId]);
    expect(before[0].status).not.toBe('completed');

    // The worker comes back: every job left queued or running when it died runs, once.
    await worker.restart();
    await until(
      'the request is completed',
      async () =>
        (await rows<{ status: string }>('SELECT status FROM requests WHERE ref_id = ?', [refId]))[0].status ===
        'completed',
      120_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await state()}`);
    });
    await until('every e-mail is sent', async () => {
      const open = await rows<{ n: number }>(
        "SELECT COUNT(*) AS n FROM outbox_messages WHERE status <> 'sent' AND channel = 'email'",
      );
      return Number(open[0].n) === 0;
    });
    // Only the request's next reminder and its expiry stay queued, due later (and the recurring jobs: the hourly drafts
    // cleanup, the daily archive renewal, the watchdog's scan and the retention run of issue 24).
    const later = ['request.remind', 'request.expire', 'drafts.cleanup', 'archive.renew', WATCHDOG_JOB, RETENTION_JOB];
    await until('no job is left but the next reminder, the expiry and the recurring jobs', async () => {
      const open = await rows<{ type: string }>("SELECT type FROM jobs WHERE status IN ('queued', 'running')");
      return open.every((j) => later.includes(j.type));
    }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await state()}`);
    });
    await sleep(2000); // a duplicate delivery would arrive now

    // Every e-mail queued was delivered exactly once (the SMTP server got one message per outbox row), and each
    // pending party got one reminder.
    const queued = await rows<{ to: string; kind: string }>(
      "SELECT recipient AS `to`, kind FROM outbox_messages WHERE channel = 'email'",
    );
    const byRecipient = (list: string[]) =>
      Object.fromEntries([...new Set(list)].sort().map((to) => [to, list.filter((x) => x === to).length]));
    expect(byRecipient(smtp.mails.flatMap((m: ReceivedMail) => m.to))).toEqual(byRecipient(queued.map((r) => r.to)));
    expect(
      queued
        .filter((r) => r.kind === 'reminder')
        .map((r) => r.to)
        .sort(),
    ).toEqual([PRIYA.email, VIKRAM.email]);
    const failed = await rows<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status = 'failed'");
    expect(Number(failed[0].n)).toBe(0);

    // The signed PDF, downloaded through nginx from the bucket, carries the three signatures and the seal.
    const list = await lb.get(`/v1/request_all/${ORG}`).set('apikey', key).expect(200);
    const item = list.body.data.find((r: { refId: number }) => r.refId === refId);
    const withDownload = (item.data as { downloadUrl?: string }[]).find((p) => p.downloadUrl);
    expect(withDownload).toBeDefined();
    const signedUrl = new URL(withDownload!.downloadUrl!);
    const download = await fetch(`${nginx.url}${signedUrl.pathname}${signedUrl.search}`);
    expect(download.status).toBe(200);
    const pdf = Buffer.from(await download.arrayBuffer());
    const root = readFileSync(join(nodeB.env.DATA_DIR, 'pki', 'dev-root-ca.pem'), 'utf8');
    const verified = runPdfVerify(pdf, [root, token.caPem]);
    expect(verified.ok).toBe(true);
    // Then the archive timestamp (B-LTA, the default), checked by pdf-verify with OpenSSL (verified.ok).
    expect(verified.archives).toHaveLength(1);
    const signatures = verified.signatures;
    expect(signatures).toHaveLength(4);
    for (const s of signatures) expect([s.signer, s.valid, s.trusted]).toEqual([s.signer, true, true]);
    expect(signatures.map((s) => s.signer)).toEqual(expect.arrayContaining([ASHA.name, VIKRAM.name, PRIYA.name]));

    // Prometheus: the worker counted the seal, node B the signature it took and its routes by pattern.
    const metricOf = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.split(' ')[1] ?? NaN,
      );
    const fromWorker = await (await fetch(`${workerMetrics}/metrics`)).text();
    expect(metricOf(fromWorker, 'esign_seals_total{result="ok"}')).toBeGreaterThanOrEqual(1);
    expect(metricOf(fromWorker, 'esign_jobs{state="failed"}')).toBe(0);
    const fromB = await (await fetch(`${nodeB.url}/metrics`)).text();
    expect(metricOf(fromB, 'esign_signatures_total{method="esignature"}')).toBeGreaterThanOrEqual(1);
    expect(fromB).toContain('route="/v1/esignature/:orgId/:requestId"');
    expect(fromB).not.toContain(String(refId));

    // Documents live in the bucket only.
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const objects = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    client.destroy();
    expect((objects.Contents ?? []).length).toBeGreaterThanOrEqual(4);
    for (const node of [nodeA, nodeB, worker]) {
      const files = join(node.env.DATA_DIR, 'files');
      expect(existsSync(files) ? readdirSync(files) : []).toEqual([]);
    }
  }, 480_000);
});
