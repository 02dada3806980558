import type { WebhookEvent } from '@esign/contract';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { WebhookDeliveryEntity } from '../src/modules/webhooks/webhook-delivery.entity';
import { verifyWebhook } from '../src/modules/webhooks/webhook-signature';
import { checkWebhookUrl, isInternalAddress } from '../src/modules/webhooks/webhook-url';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service';
import { freePort } from './support/mariadb-server';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('webhooks', () => {
  let t: TestApp;
  let receiver: Server;
  let base: string;
  let keyA: string;
  let keyB: string;
  const received: Received[] = [];
  /** Status codes the receiver answers, in order; 200 when empty. */
  const answers: number[] = [];

  const emit = (orgId: string, event: WebhookEvent, data: object) =>
    t.db.transaction((m) => t.app.get(WebhooksService).emit(m, orgId, event, data));
  const drain = () => t.app.get(JobsRunner).drain();
  const create = (key: string, body: object) => t.http.post('/api/webhooks').set('apikey', key).send(body);
  const hmac = (secret: string, timestamp: string, body: string) =>
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answers.shift() ?? 200, { 'Content-Type': 'text/plain' }).end('thanks');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'bob', 'bob-password');
    // Organisation API keys: session keys would expire while the tests move the clock by hours.
    const orgKey = async (session: string) =>
      (await t.http.post('/api/api-keys').set('apikey', session).send({ name: 'webhooks test' }).expect(201)).body
        .key as string;
    keyA = await orgKey(await signIn(t, 'alice', 'alice-password'));
    keyB = await orgKey(await signIn(t, 'bob', 'bob-password'));
  });
  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });

  it('shows the signing secret once, at creation, and lists webhooks the ra-data-simple-rest way', async () => {
    const created = await create(keyA, { url: `${base}/hooks/a`, events: ['party.invited', 'party.invited'] }).expect(
      201,
    );
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${base}/hooks/a`,
      events: ['party.invited'],
      active: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
      // Issue 24: what the limits see (nothing failed yet) and why it would be disabled (it is not).
      disabled_reason: null,
      disabled_at: null,
      consecutive_failures: 0,
      failing_since: null,
    });
    const { id } = created.body;

    const one = await t.http.get(`/api/webhooks/${id}`).set('apikey', keyA).expect(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(one.body).toMatchObject({ id, url: `${base}/hooks/a` });

    await create(keyA, { url: `${base}/hooks/b` }).expect(201);
    const list = await t.http.get('/api/webhooks').set('apikey', keyA).expect(200);
    expect(list.headers['content-range']).toBe('webhooks 0-1/2');
    expect(list.headers['access-control-expose-headers']).toContain('Content-Range');
    expect(list.body).toHaveLength(2);
    expect(list.body.map((w: { events: string[] }) => w.events)).toEqual(expect.arrayContaining([['*']]));
    for (const w of list.body) expect(w).not.toHaveProperty('secret');
    const page = await t.http
      .get('/api/webhooks')
      .query({ range: '[1,1]', sort: '["url","ASC"]', filter: '{"q":"hooks/"}' })
      .set('apikey', keyA)
      .expect(200);
    expect(page.headers['content-range']).toBe('webhooks 1-1/2');
    expect(page.body.map((w: { url: string }) => w.url)).toEqual([`${base}/hooks/b`]);
    await t.http.get('/api/webhooks').query({ range: 'oops' }).set('apikey', keyA).expect(400);

    for (const w of list.body) await t.http.delete(`/api/webhooks/${w.id}`).set('apikey', keyA).expect(200);
  });

  it('delivers an emitted event signed with HMAC-SHA256 of the timestamp and the exact body', async () => {
    const { body: hook } = await create(keyA, { url: `${base}/hooks/signed`, events: ['party.invited'] }).expect(201);

    expect(await emit('acme', 'party.invited', { refId: 1700000000001, order: 1, name: 'Ravi' })).toBe(1);
    expect(await emit('acme', 'request.completed', { refId: 1700000000001 })).toBe(0);
    expect(received).toHaveLength(0);
    expect(await drain()).toBe(1);

    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req.path).toBe('/hooks/signed');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-esign-event']).toBe('party.invited');
    const timestamp = String(Math.floor(t.clock.now().getTime() / 1000));
    expect(req.headers['x-esign-timestamp']).toBe(timestamp);
    expect(req.headers['x-esign-signature']).toBe(hmac(hook.secret, timestamp, req.body));
    expect(req.headers['x-esign-signature']).not.toBe(hmac(hook.secret, timestamp, `${req.body} `));
    expect(
      verifyWebhook(
        hook.secret,
        { timestamp, signature: String(req.headers['x-esign-signature']) },
        req.body,
        Number(timestamp),
      ),
    ).toBe(true);
    expect(
      verifyWebhook(
        hook.secret,
        { timestamp, signature: String(req.headers['x-esign-signature']) },
        req.body.replace('Ravi', 'Eve'),
        Number(timestamp),
      ),
    ).toBe(false);
    expect(JSON.parse(req.body)).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f-]{36}$/),
      event: 'party.invited',
      createdAt: t.clock.now().toISOString(),
      orgId: 'acme',
      data: { refId: 1700000000001, order: 1, name: 'Ravi' },
    });

    const deliveries = await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200);
    expect(deliveries.headers['content-range']).toBe('deliveries 0-0/1');
    expect(deliveries.body).toEqual([
      {
        id: Number(req.headers['x-esign-delivery']),
        webhook_id: hook.id,
        event: 'party.invited',
        status: 'delivered',
        attempts: 1,
        responseStatus: 200,
        error: null,
        response_excerpt: 'thanks',
        redelivery_of: null,
        createdAt: t.clock.now().toISOString(),
        deliveredAt: t.clock.now().toISOString(),
      },
    ]);
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
  });

  it('writes no delivery when the emitting transaction rolls back', async () => {
    const { body: hook } = await create(keyA, { url: `${base}/hooks/rollback` }).expect(201);
    await expect(
      t.db.transaction(async (m) => {
        await t.app.get(WebhooksService).emit(m, 'acme', 'request.submitted', { refId: 1 });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await drain()).toBe(0);
    expect(received).toHaveLength(0);
    expect(await t.db.getRepository(WebhookDeliveryEntity).countBy({ webhookId: hook.id })).toBe(0);
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
  });

  it('retries a receiver that answers 500 with backoff and records delivery on the third attempt', async () => {
    const { body: hook } = await create(keyA, { url: `${base}/hooks/flaky`, events: ['*'] }).expect(201);
    answers.push(500, 500, 200);
    await emit('acme', 'request.completed', { refId: 7 });

    expect(await drain()).toBe(1);
    let [delivery] = (await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200)).body;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500, deliveredAt: null });
    expect(delivery.error).toBe('the receiver answered 500');
    expect(await drain()).toBe(0);

    t.clock.advance(34);
    expect(await drain()).toBe(1);
    [delivery] = (await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200)).body;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 2, responseStatus: 500 });
    t.clock.advance(34);
    expect(await drain()).toBe(0);

    t.clock.advance(33);
    expect(await drain()).toBe(1);
    [delivery] = (await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200)).body;
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempts: 3,
      responseStatus: 200,
      error: null,
      deliveredAt: t.clock.now().toISOString(),
    });

    // The same delivery and body each time, each attempt signed with its own timestamp.
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers['x-esign-delivery'])).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(new Set(received.map((r) => r.headers['x-esign-timestamp'])).size).toBe(3);
    for (const r of received) {
      expect(r.headers['x-esign-signature']).toBe(hmac(hook.secret, String(r.headers['x-esign-timestamp']), r.body));
    }

    // Newest first.
    await emit('acme', 'party.signed', { refId: 7, order: 1 });
    t.clock.advance(1);
    await emit('acme', 'party.opened', { refId: 7, order: 2 });
    await drain();
    const list = await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200);
    expect(list.body.map((d: { event: string }) => d.event)).toEqual([
      'party.opened',
      'party.signed',
      'request.completed',
    ]);
    expect(list.headers['content-range']).toBe('deliveries 0-2/3');
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
  });

  it('ends a delivery failed with its error after the last attempt when the receiver is down', async () => {
    const { body: hook } = await create(keyA, { url: `http://127.0.0.1:${await freePort()}/gone` }).expect(201);
    await emit('acme', 'request.expired', { refId: 8 });
    let runs = 0;
    for (let i = 0; i < 20 && runs < 8; i++) {
      runs += await drain();
      t.clock.advance(2 * 3600);
    }
    expect(runs).toBe(8);
    const [delivery] = (await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA).expect(200)).body;
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8, responseStatus: null, deliveredAt: null });
    expect(delivery.error).toMatch(/^the receiver could not be reached: ECONNREFUSED/);
    expect(
      await t.db.getRepository(JobEntity).findOneByOrFail({ type: 'webhook.deliver', status: 'failed' }),
    ).toMatchObject({
      attempts: 8,
    });
    expect(await drain()).toBe(0);
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
  });

  it("never shows or changes another organisation's webhook", async () => {
    const { body: hook } = await create(keyA, { url: `${base}/hooks/private` }).expect(201);
    for (const [method, path] of [
      ['get', `/api/webhooks/${hook.id}`],
      ['put', `/api/webhooks/${hook.id}`],
      ['delete', `/api/webhooks/${hook.id}`],
      ['get', `/api/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const res = await t.http[method](path)
        .set('apikey', keyB)
        .send(method === 'put' ? { active: false } : undefined);
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 404, error: 'NOT_FOUND' });
      expect(JSON.stringify(res.body)).not.toContain('hooks/private');
    }
    const listB = await t.http.get('/api/webhooks').set('apikey', keyB).expect(200);
    expect(listB.body).toEqual([]);
    expect(listB.headers['content-range']).toBe('webhooks 0-0/0');
    // Naming the other organisation is refused outright.
    await t.http.get(`/api/webhooks/${hook.id}`).set('apikey', keyB).set('org-id', 'acme').expect(403);
    // Events of the other organisation never reach it.
    expect(await emit('globex', 'request.submitted', { refId: 9 })).toBe(0);
    expect(await drain()).toBe(0);
    expect(received).toHaveLength(0);

    const still = await t.http.get(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
    expect(still.body.active).toBe(true);
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
  });

  it('updates, disables and deletes a webhook; a disabled webhook gets no deliveries', async () => {
    const { body: hook } = await create(keyA, { url: `${base}/hooks/one`, events: ['party.signed'] }).expect(201);
    t.clock.advance(5);
    const updated = await t.http
      .put(`/api/webhooks/${hook.id}`)
      .set('apikey', keyA)
      .send({ url: `${base}/hooks/two`, events: ['party.signed', '*'] })
      .expect(200);
    expect(updated.body).toMatchObject({ url: `${base}/hooks/two`, events: ['*'], active: true });
    expect(updated.body.updatedAt).toBe(t.clock.now().toISOString());
    expect(updated.body).not.toHaveProperty('secret');

    // Emitted while active, disabled before the job ran: dropped, never posted.
    await emit('acme', 'party.signed', { refId: 10 });
    await t.http.put(`/api/webhooks/${hook.id}`).set('apikey', keyA).send({ active: false }).expect(200);
    expect(await drain()).toBe(1);
    expect(received).toHaveLength(0);
    const [dropped] = (await t.http.get(`/api/webhooks/${hook.id}/deliveries`).set('apikey', keyA)).body;
    expect(dropped).toMatchObject({ status: 'failed', error: 'the webhook is disabled', attempts: 0 });
    expect(await emit('acme', 'party.signed', { refId: 11 })).toBe(0);

    const deleted = await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
    expect(deleted.body).toMatchObject({ id: hook.id, active: false });
    await t.http.get(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(404);
    expect(await t.db.getRepository(WebhookDeliveryEntity).countBy({ webhookId: hook.id })).toBe(0);
  });

  it('refuses bad URLs and unknown events with a clear 400', async () => {
    const bad = async (body: object, message: string | RegExp) => {
      const res = await create(keyA, body).expect(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(message);
    };
    const notHttp = 'The webhook url must be an absolute http:// or https:// URL.';
    await bad({ url: 'ftp://example.com/hook' }, notHttp);
    await bad({ url: 'javascript:alert(1)' }, notHttp);
    await bad({ url: 'not a url' }, notHttp);
    await bad({ url: `https://example.com/${'a'.repeat(2048)}` }, 'url must be at most 2048 characters');
    await bad({}, /url must be a string/);
    await bad(
      { url: 'https://example.com/h', events: ['party.exploded'] },
      /events must each be one of: request\.submitted/,
    );
    await bad({ url: 'https://example.com/h', events: [] }, /events must name at least one event/);
    await bad({ url: 'https://example.com/h', secret: 'mine' }, /property secret should not exist/);
    const { body: hook } = await create(keyA, { url: 'https://example.com/h' }).expect(201);
    const res = await t.http.put(`/api/webhooks/${hook.id}`).set('apikey', keyA).send({ url: 'file:///etc/passwd' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(notHttp);
    await t.http.put(`/api/webhooks/${hook.id}`).set('apikey', keyA).send({ active: 'yes' }).expect(400);
    await t.http.delete(`/api/webhooks/${hook.id}`).set('apikey', keyA).expect(200);
    await expect(t.app.get(WebhooksService).emit(t.db.manager, 'acme', 'party.exploded' as never, {})).rejects.toThrow(
      /Unknown webhook event/,
    );
  });

  it('in production refuses loopback, private and link-local targets', () => {
    const internal = [
      'http://127.0.0.1:8080/h',
      'http://localhost/h',
      'http://api.localhost/h',
      'http://10.1.2.3/h',
      'http://172.20.0.5/h',
      'http://192.168.1.10/h',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/h',
      'http://[fd00::1]/h',
      'http://[::ffff:192.168.1.1]/h',
      'http://0.0.0.0/h',
    ];
    for (const url of internal) {
      expect(() => checkWebhookUrl(url, true)).toThrow('must point to a public address');
      expect(checkWebhookUrl(url, false)).toBe(url);
    }
    expect(checkWebhookUrl('https://hooks.example.com/esign', true)).toBe('https://hooks.example.com/esign');
    expect(checkWebhookUrl('https://93.184.216.34/esign', true)).toBe('https://93.184.216.34/esign');
    expect(isInternalAddress('8.8.8.8')).toBe(false);
    expect(isInternalAddress('::ffff:10.0.0.1')).toBe(true);
  });
});
