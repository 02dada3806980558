import { DocumentStorage } from '../src/modules/storage/document-storage';
import { freePort, startRedis, stopAll } from './scale-out/cluster';
import { SIGNERS } from './support/requests';
import { drain, requestRow, sendForSigning, signAs } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/** The value of one series in the Prometheus text (labels exactly as written), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The `route` label values of esign_http_request_duration_seconds. */
function routes(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/^esign_http_request_duration_seconds_count\{([^}]*)\}/gm)) {
    const route = /route="([^"]*)"/.exec(m[1])?.[1];
    if (route !== undefined) found.add(route);
  }
  return [...found];
}

describe('GET /metrics (Prometheus)', () => {
  let t: TestApp;
  let key: string;
  let refId: number;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  it('answers the Prometheus text format with default process metrics, open without METRICS_TOKEN', async () => {
    const res = await t.http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# HELP esign_process_cpu_user_seconds_total /m);
    expect(res.text).toMatch(/^# TYPE esign_http_request_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^# TYPE esign_jobs gauge$/m);
    for (const state of ['queued', 'running', 'done', 'failed'])
      expect(sample(res.text, `esign_jobs{state="${state}"}`)).toBe(0);
  });

  it('counts one electronic signature and its seal, and the finished jobs', async () => {
    const sent = await sendForSigning(
      t,
      key,
      'acme',
      { fixture: 'normal.pdf', recipients: [SIGNERS[0]], otpRequired: false },
      [{ order: 1, pageNo: [1] }],
    );
    refId = sent.refId;
    await signAs(t, { orgId: 'acme', refId, order: 1, token: sent.tokens[1], email: SIGNERS[0].email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');

    const text = (await t.http.get('/metrics').expect(200)).text;
    expect(sample(text, 'esign_signatures_total{method="esignature"}')).toBe(1);
    expect(sample(text, 'esign_signatures_total{method="aadhaar"}')).toBe(0);
    expect(sample(text, 'esign_signatures_total{method="dsc"}')).toBe(0);
    expect(sample(text, 'esign_seals_total{result="ok"}')).toBe(1);
    expect(sample(text, 'esign_seals_total{result="failed"}')).toBe(0);
    expect(sample(text, 'esign_jobs{state="done"}')).toBeGreaterThanOrEqual(1);
  });

  it('labels requests with the route pattern, never the raw path, and unknown paths as unmatched', async () => {
    await t.http.get(`/api/requests/${refId}`).set('apikey', key).expect(200);
    await t.http.get('/v1/no-such-route/4242424242').expect(404);
    await t.http.get('/sign-in').expect(200);
    const text = (await t.http.get('/metrics').expect(200)).text;
    const seen = routes(text);
    expect(seen).toEqual(
      expect.arrayContaining(['/api/requests/:id', '/v1/request_all/:orgId', '/sign-in', 'unmatched']),
    );
    expect(
      sample(text, 'esign_http_request_duration_seconds_count{method="GET",route="/api/requests/:id",status="200"}'),
    ).toBe(1);
    expect(sample(text, 'esign_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(
      1,
    );
    // No tenant data anywhere: no Ref ID, organisation, e-mail or raw path.
    expect(text).not.toContain(String(refId));
    expect(text).not.toContain('acme');
    expect(text).not.toContain(SIGNERS[0].email);
    expect(text).not.toContain('no-such-route');
    for (const route of seen) expect(route === 'unmatched' || route.startsWith('/')).toBe(true);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789';
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => t.close());

  it('answers 401 without the bearer token or with a wrong one, and the metrics with the right one', async () => {
    const none = await t.http.get('/metrics').expect(401);
    expect(none.body.error).toBe('INVALID_CREDENTIALS');
    expect(none.text).not.toContain('esign_');
    await t.http.get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
    await t.http.get('/metrics').set('Authorization', 'Bearer wrong').expect(401);
    await t.http.get('/metrics').set('Authorization', `Basic ${token}`).expect(401);
    const ok = await t.http.get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(ok.text).toMatch(/^esign_seals_total\{result="ok"\} 0$/m);
  });
});

describe('GET /health/ready', () => {
  it('answers 200 with every check ok (Redis off), and 503 naming the store when the document store fails', async () => {
    const t = await startTestApp();
    try {
      const ready = await t.http.get('/health/ready').expect(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'off', storage: 'ok' } });
      await t.http.get('/health').expect(200);

      const storage = t.app.get(DocumentStorage);
      jest.spyOn(storage, 'check').mockRejectedValue(new Error('the document folder is not writable'));
      const down = await t.http.get('/health/ready').expect(503);
      expect(down.body).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', redis: 'off', storage: 'the document folder is not writable' },
      });
    } finally {
      await t.close();
    }
  });

  it('checks Redis when REDIS_URL is set, and answers 503 within 5 s once its port is closed', async () => {
    const redis = await startRedis();
    let t: TestApp | null = null;
    try {
      t = await startTestApp({ REDIS_URL: redis.url });
      const up = await t.http.get('/health/ready').expect(200);
      expect(up.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', storage: 'ok' } });

      await redis.stop();
      const started = Date.now();
      const res = await t.http.get('/health/ready').expect(503);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.body.status).toBe('unavailable');
      expect(res.body.checks.database).toBe('ok');
      expect(res.body.checks.storage).toBe('ok');
      expect(typeof res.body.checks.redis).toBe('string');
      expect(['ok', 'off']).not.toContain(res.body.checks.redis);
      expect(res.body.checks.redis.length).toBeLessThanOrEqual(200);
    } finally {
      await t?.close();
      await stopAll();
    }
  }, 60_000);

  it('starts while Redis is unreachable and is not ready until it is', async () => {
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}/0` });
    try {
      const started = Date.now();
      const res = await t.http.get('/health/ready').expect(503);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.body.checks).toMatchObject({ database: 'ok', storage: 'ok' });
      expect(['ok', 'off']).not.toContain(res.body.checks.redis);
      await t.http.get('/health').expect(200);
    } finally {
      await t.close();
    }
  }, 60_000);
});
