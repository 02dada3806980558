import { AdminMessages, DELIVERY_EXCERPT_BYTES, type WebhookDelivery, type WebhookEvent } from '@esign/contract';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { verifyWebhook } from '../src/modules/webhooks/webhook-signature';
import { utf8Prefix, WebhooksService } from '../src/modules/webhooks/webhooks.service';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The administrator's webhooks (issue 22): rotating the signing secret, the `deliveries` resource with each answer's
 * excerpt, and sending a delivery again; checked at a real HTTP receiver on loopback that verifies the HMAC.
 */
describe('webhook administration: secrets, deliveries, redelivery', () => {
  let t: TestApp;
  let receiver: Server;
  let url: string;
  let key: string;
  let otherKey: string;
  const received: Received[] = [];
  /** What the receiver answers next (status and body); 200 'thanks' when empty. */
  const answers: { status: number; body: string | Buffer }[] = [];

  const emit = (event: WebhookEvent, data: object) =>
    t.db.transaction((m) => t.app.get(WebhooksService).emit(m, 'acme', event, data));
  const drain = () => t.app.get(JobsRunner).drain();
  const deliveries = (k: string, query: Record<string, string> = {}) =>
    t.http.get('/api/deliveries').set('apikey', k).query(query);
  /** Whether a received call carries a valid signature made with `secret`. */
  const signedWith = (r: Received, secret: string) =>
    verifyWebhook(
      secret,
      { timestamp: String(r.headers['x-esign-timestamp']), signature: String(r.headers['x-esign-signature']) },
      r.body,
      Math.floor(t.clock.now().getTime() / 1000),
    );

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = answers.shift() ?? { status: 200, body: 'thanks' };
        res.writeHead(answer.status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/esign`;
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'bob', 'bob-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'globex');
  });
  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });

  let hookId: string;
  let firstSecret: string;
  let firstDelivery: WebhookDelivery;

  it("lists every delivery with its webhook, status, the receiver's answer and no redelivery", async () => {
    const created = await t.http
      .post('/api/webhooks')
      .set('apikey', key)
      .send({ url, events: ['*'] })
      .expect(201);
    hookId = created.body.id;
    firstSecret = created.body.secret;
    await emit('request.completed', { refId: 1234567890 });
    await drain();
    expect(received).toHaveLength(1);
    expect(signedWith(received[0], firstSecret)).toBe(true);

    const list = await deliveries(key).expect(200);
    expect(list.headers['content-range']).toBe('deliveries 0-0/1');
    expect(list.body).toEqual([
      {
        id: expect.any(Number),
        webhook_id: hookId,
        event: 'request.completed',
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
    firstDelivery = list.body[0];
    expect((await t.http.get(`/api/deliveries/${firstDelivery.id}`).set('apikey', key).expect(200)).body).toEqual(
      firstDelivery,
    );
    // The webhook's own list says the same.
    const own = await t.http.get(`/api/webhooks/${hookId}/deliveries`).set('apikey', key).expect(200);
    expect(own.body).toEqual([firstDelivery]);
  });

  it('keeps the start of a failing answer and filters by webhook, status and event', async () => {
    answers.push({ status: 500, body: 'database is down' });
    await emit('party.signed', { refId: 1234567890, order: 1 });
    await drain();
    const failing = await deliveries(key, { filter: JSON.stringify({ status: 'pending' }) }).expect(200);
    expect(failing.body).toEqual([
      expect.objectContaining({
        event: 'party.signed',
        status: 'pending',
        attempts: 1,
        responseStatus: 500,
        error: 'the receiver answered 500',
        response_excerpt: 'database is down',
      }),
    ]);
    const byEvent = await deliveries(key, { filter: JSON.stringify({ event: 'request.completed' }) }).expect(200);
    expect(byEvent.body.map((d: WebhookDelivery) => d.id)).toEqual([firstDelivery.id]);
    const byHook = await deliveries(key, {
      filter: JSON.stringify({ webhook_id: hookId }),
      sort: JSON.stringify(['id', 'ASC']),
    }).expect(200);
    expect(byHook.body.map((d: WebhookDelivery) => d.event)).toEqual(['request.completed', 'party.signed']);
    await deliveries(key, { filter: JSON.stringify({ webhook: hookId }) }).expect(400);
    await deliveries(key, { sort: JSON.stringify(['body', 'ASC']) }).expect(400);
  });

  it(`cuts the excerpt at ${DELIVERY_EXCERPT_BYTES} bytes, never inside a UTF-8 character`, async () => {
    // 4095 ASCII bytes, then '€' (3 bytes) across the limit: the excerpt stops before it.
    answers.push({ status: 200, body: `${'a'.repeat(DELIVERY_EXCERPT_BYTES - 1)}€ and much more after it` });
    // A Hindi answer: 3-byte characters from the first byte.
    answers.push({ status: 200, body: 'धन्यवाद'.repeat(400) });
    await emit('party.opened', { refId: 1, order: 1 });
    await emit('party.opened', { refId: 2, order: 1 });
    await drain();
    const opened = await deliveries(key, {
      filter: JSON.stringify({ event: 'party.opened' }),
      sort: JSON.stringify(['id', 'ASC']),
    }).expect(200);
    const [ascii, hindi] = opened.body.map((d: WebhookDelivery) => d.response_excerpt as string);
    expect(ascii).toBe('a'.repeat(DELIVERY_EXCERPT_BYTES - 1));
    expect(Buffer.byteLength(hindi)).toBeLessThanOrEqual(DELIVERY_EXCERPT_BYTES);
    expect(Buffer.byteLength(hindi)).toBeGreaterThan(DELIVERY_EXCERPT_BYTES - 3);
    expect(hindi).not.toContain('\uFFFD');
    expect('धन्यवाद'.repeat(400).startsWith(hindi)).toBe(true);

    // The cut itself, on bytes.
    expect(utf8Prefix(Buffer.from('ab€', 'utf8'), 4)).toBe('ab');
    expect(utf8Prefix(Buffer.from('ab€', 'utf8'), 5)).toBe('ab€');
    expect(utf8Prefix(Buffer.from('a😀', 'utf8'), 3)).toBe('a');
  });

  it('rotates the secret: shown once, and every delivery from then on is signed with the new one', async () => {
    const rotated = await t.http.post(`/api/webhooks/${hookId}/secret`).set('apikey', key).expect(200);
    expect(rotated.body).toMatchObject({ id: hookId, url, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    const secret = rotated.body.secret as string;
    expect(secret).not.toBe(firstSecret);
    const shown = await t.http.get(`/api/webhooks/${hookId}`).set('apikey', key).expect(200);
    expect(shown.body.secret).toBeUndefined();

    await emit('request.expired', { refId: 1234567890 });
    await drain();
    expect(received).toHaveLength(1);
    expect(signedWith(received[0], secret)).toBe(true);
    expect(signedWith(received[0], firstSecret)).toBe(false);
    firstSecret = secret;
  });

  it('sends a delivery again: a new delivery of the same body, signed with the current secret', async () => {
    const again = await t.http.post(`/api/deliveries/${firstDelivery.id}/redeliver`).set('apikey', key).expect(201);
    expect(again.body).toMatchObject({
      webhook_id: hookId,
      event: 'request.completed',
      status: 'pending',
      attempts: 0,
      redelivery_of: firstDelivery.id,
      response_excerpt: null,
    });
    expect(again.body.id).not.toBe(firstDelivery.id);
    await drain();
    expect(received).toHaveLength(1);
    const [row] = (await t.db.query('SELECT body FROM webhook_deliveries WHERE id = ?', [firstDelivery.id])) as {
      body: string;
    }[];
    expect(received[0].body).toBe(row.body);
    expect(received[0].headers['x-esign-delivery']).toBe(String(again.body.id));
    expect(received[0].headers['x-esign-event']).toBe('request.completed');
    expect(signedWith(received[0], firstSecret)).toBe(true);
    const after = await t.http.get(`/api/deliveries/${again.body.id}`).set('apikey', key).expect(200);
    expect(after.body).toMatchObject({ status: 'delivered', redelivery_of: firstDelivery.id });
    // The original is as it was.
    expect((await t.http.get(`/api/deliveries/${firstDelivery.id}`).set('apikey', key)).body).toEqual(firstDelivery);
  });

  it("refuses to send again to a disabled webhook, and knows no other organisation's deliveries", async () => {
    await t.http.put(`/api/webhooks/${hookId}`).set('apikey', key).send({ active: false }).expect(200);
    const refused = await t.http.post(`/api/deliveries/${firstDelivery.id}/redeliver`).set('apikey', key).expect(409);
    expect(refused.body.message).toBe(AdminMessages.redeliveryWebhookInactive);
    await t.http.put(`/api/webhooks/${hookId}`).set('apikey', key).send({ active: true }).expect(200);

    const count = async () =>
      Number(((await t.db.query('SELECT COUNT(*) AS n FROM webhook_deliveries')) as { n: number }[])[0].n);
    const before = await count();
    expect((await deliveries(otherKey).expect(200)).body).toEqual([]);
    const notFound = await t.http.get(`/api/deliveries/${firstDelivery.id}`).set('apikey', otherKey).expect(404);
    expect(notFound.body.message).toBe(AdminMessages.deliveryNotFound.replace('{id}', String(firstDelivery.id)));
    await t.http.post(`/api/deliveries/${firstDelivery.id}/redeliver`).set('apikey', otherKey).expect(404);
    await t.http.post(`/api/webhooks/${hookId}/secret`).set('apikey', otherKey).expect(404);
    await t.http.get(`/api/deliveries/${firstDelivery.id}`).set('apikey', otherKey).set('org-id', 'acme').expect(403);
    const junk = await t.http.get('/api/deliveries/not-a-number').set('apikey', key).expect(404);
    expect(junk.body.message).toBe(AdminMessages.deliveryNotFound.replace('{id}', 'not-a-number'));
    expect(await count()).toBe(before);
    await drain();
    expect(received).toEqual([]);
  });
});
