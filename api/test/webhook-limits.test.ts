import {
  DELIVERY_EXCERPT_BYTES,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  WEBHOOK_MAX_ATTEMPTS,
  WebhookMessages,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
} from '@esign/contract';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { UserEntity } from '../src/modules/auth/user.entity';
import { UsersService } from '../src/modules/auth/users.service';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { NotificationsService } from '../src/modules/notifications/notifications.service';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { WebhookDeliveryEntity } from '../src/modules/webhooks/webhook-delivery.entity';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service';
import { requestRow, sendForSigning, signAs } from './support/signing';
import { startSmtpServer, type ReceivedMail } from './support/smtp';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 24, webhooks that give up cleanly: after 8 failed attempts a delivery is failed; after 20 failed deliveries in
 * a row, or 3 days of failures, the webhook is disabled, its administrators are e-mailed and nothing more is queued
 * for it; a delivery never holds up the change it reports nor that change's e-mails, even with SMTP failing too.
 */
describe('webhooks that give up cleanly', () => {
  let t: TestApp;
  let receiver: Server;
  let base: string;
  let key: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let smtpFailing = false;
  /** Calls the receiver got, by path. */
  const hits = new Map<string, number>();
  /** Answers held open (the /hang path), released at the end. */
  const hanging: ServerResponse[] = [];
  const BIG_ANSWER = `${'x'.repeat(10_000)} the end`;

  const drain = () => t.app.get(JobsRunner).drain();
  /** Runs every job due over the next ~12 hours of the test's clock: every retry of every delivery. */
  const settle = async () => {
    for (let i = 0; i < 12; i++) {
      await drain();
      t.clock.advance(3600);
    }
    await drain();
  };
  const emit = (event: WebhookEvent, data: object) =>
    t.db.transaction((m) => t.app.get(WebhooksService).emit(m, 'acme', event, data));
  const createHook = async (path: string): Promise<Webhook> =>
    (
      await t.http
        .post('/api/webhooks')
        .set('apikey', key)
        .send({ url: `${base}${path}`, events: ['*'] })
        .expect(201)
    ).body as Webhook;
  const hook = async (id: string): Promise<Webhook> =>
    (await t.http.get(`/api/webhooks/${id}`).set('apikey', key).expect(200)).body as Webhook;
  const deliveriesOf = async (id: string): Promise<WebhookDelivery[]> =>
    (
      await t.http
        .get('/api/deliveries')
        .set('apikey', key)
        .query({ filter: JSON.stringify({ webhook_id: id }), range: '[0,99]' })
        .expect(200)
    ).body as WebhookDelivery[];
  const outbox = (kind: string) => t.db.getRepository(OutboxMessageEntity).find({ where: { kind: kind as never } });
  const mailsWith = (text: string): ReceivedMail[] => smtp.mails.filter((m) => m.raw.includes(text));

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '/';
        hits.set(path, (hits.get(path) ?? 0) + 1);
        if (path.startsWith('/hang')) return void hanging.push(res);
        if (path.startsWith('/bad')) return void res.writeHead(500, { 'Content-Type': 'text/plain' }).end(BIG_ANSWER);
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    smtp = await startSmtpServer({ failing: () => smtpFailing });
    t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true` });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    const users = t.app.get(UsersService);
    await users.setEmail('alice', 'alice@acme.example');
    // Told: administrators with an e-mail address. Not told: staff, a disabled administrator, one without an address.
    await users.create('acme', 'ops-admin', 'ops-password', 'ops@acme.example', 'admin');
    await users.create('acme', 'sam', 'sam-password-1', 'sam@acme.example', 'staff');
    await users.create('acme', 'gone', 'gone-password', 'gone@acme.example', 'admin');
    await t.db.getRepository(UserEntity).update({ username: 'gone' }, { disabled: true });
    await users.create('acme', 'no-mail', 'no-mail-password', undefined, 'admin');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    await t.close();
    await smtp.close();
    await new Promise((r) => receiver.close(r));
  });

  it(`fails each delivery after ${WEBHOOK_MAX_ATTEMPTS} attempts and disables the webhook after ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} in a row; the administrators are e-mailed and nothing more is queued`, async () => {
    const bad = await createHook('/bad-1');
    const good = await createHook('/good-1');
    for (let i = 0; i < WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES; i++) await emit('party.opened', { refId: 1000 + i });
    await settle();

    // Exactly 8 attempts for each of the 20 deliveries: not one call more.
    expect(hits.get('/bad-1')).toBe(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES * WEBHOOK_MAX_ATTEMPTS);
    const failed = await deliveriesOf(bad.id);
    expect(failed).toHaveLength(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES);
    for (const d of failed) {
      expect(d).toMatchObject({ status: 'failed', attempts: WEBHOOK_MAX_ATTEMPTS, responseStatus: 500 });
      expect(d.error).toBe('the receiver answered 500');
      // The receiver's 10 KB answer is kept cut at 4 KB.
      expect(Buffer.byteLength(d.response_excerpt ?? '', 'utf8')).toBe(DELIVERY_EXCERPT_BYTES);
    }
    const disabled = await hook(bad.id);
    expect(disabled).toMatchObject({
      active: false,
      consecutive_failures: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
      disabled_reason: WebhookMessages.disabledAfterFailedDeliveries.replace('{error}', 'the receiver answered 500'),
    });
    expect(disabled.disabled_at).toEqual(expect.any(String));
    // The other webhook got every event.
    expect((await deliveriesOf(good.id)).map((d) => d.status)).toEqual(
      Array(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES).fill('delivered'),
    );
    expect(await hook(good.id)).toMatchObject({ active: true, consecutive_failures: 0, failing_since: null });

    // Its administrators with an e-mail address are told, once, through the outbox and SMTP.
    const notices = await outbox('webhook-disabled');
    expect(notices.map((m) => m.to).sort()).toEqual(['alice@acme.example', 'ops@acme.example']);
    expect(notices.every((m) => m.status === 'sent' && m.text.includes(`${base}/bad-1`))).toBe(true);
    expect(notices[0].text).toContain(disabled.disabled_reason);
    expect(
      mailsWith('Subject: Webhook disabled')
        .flatMap((m) => m.to)
        .sort(),
    ).toEqual(['alice@acme.example', 'ops@acme.example']);

    // Nothing more is queued for it: the delivery log stops growing.
    await emit('party.opened', { refId: 2000 });
    await settle();
    expect(await deliveriesOf(bad.id)).toHaveLength(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES);
    expect(hits.get('/bad-1')).toBe(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES * WEBHOOK_MAX_ATTEMPTS);
    expect(await deliveriesOf(good.id)).toHaveLength(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES + 1);
    // A redelivery is refused while it is disabled.
    await t.http.post(`/api/deliveries/${failed[0].id}/redeliver`).set('apikey', key).send({}).expect(409);

    // Enabled again, it starts afresh.
    const enabled = await t.http.put(`/api/webhooks/${bad.id}`).set('apikey', key).send({ active: true }).expect(200);
    expect(enabled.body).toMatchObject({
      active: true,
      disabled_reason: null,
      disabled_at: null,
      consecutive_failures: 0,
      failing_since: null,
    });
    await emit('party.opened', { refId: 2001 });
    await drain();
    expect(await deliveriesOf(bad.id)).toHaveLength(WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES + 1);
    expect((await hook(bad.id)).failing_since).toBe(t.clock.now().toISOString());
    // Disabled by hand, it says so.
    const byHand = await t.http.put(`/api/webhooks/${bad.id}`).set('apikey', key).send({ active: false }).expect(200);
    expect(byHand.body.disabled_reason).toBe(WebhookMessages.disabledByAdministrator);
    await settle();
    // Its pending delivery ended failed without another call once it was disabled.
    const last = (await deliveriesOf(bad.id))[0];
    expect(last).toMatchObject({ status: 'failed', attempts: 1, error: WebhookMessages.deliveryWebhookDisabled });
  });

  it('disables a webhook whose deliveries have failed for 3 days, at the first failed attempt after that', async () => {
    const bad = await createHook('/bad-2');
    await emit('request.expired', { refId: 3000 });
    await settle();
    expect(await hook(bad.id)).toMatchObject({ active: true, consecutive_failures: 1 });
    const since = (await hook(bad.id)).failing_since!;
    t.clock.advance(3 * 86_400);
    await emit('request.expired', { refId: 3001 });
    await drain();
    const disabled = await hook(bad.id);
    expect(disabled).toMatchObject({
      active: false,
      failing_since: since,
      disabled_reason: WebhookMessages.disabledAfterFailingDays.replace('{error}', 'the receiver answered 500'),
    });
    const [latest] = await deliveriesOf(bad.id);
    expect(latest).toMatchObject({ status: 'failed', attempts: 1, error: 'the receiver answered 500' });
    expect(hits.get('/bad-2')).toBe(WEBHOOK_MAX_ATTEMPTS + 1);
    await settle();
    expect(hits.get('/bad-2')).toBe(WEBHOOK_MAX_ATTEMPTS + 1);
    expect((await outbox('webhook-disabled')).filter((m) => m.text.includes(`${base}/bad-2`))).toHaveLength(2);
  });

  it('runs deliveries in a lane of their own: receivers that hang do not hold up the e-mails of the same change', async () => {
    const hooks = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => createHook(`/hang-${i}`)));
    const runner = t.app.get(JobsRunner);
    await t.db.transaction(async (m) => {
      await t.app.get(WebhooksService).emit(m, 'acme', 'request.completed', { refId: 4000 });
      await t.app.get(NotificationsService).queue(m, {
        orgId: 'acme',
        kind: 'completed',
        channel: 'email',
        to: 'signer@example.in',
        subject: 'Completed',
        text: 'The document is signed.',
      });
    });
    await runner.start();
    try {
      const deadline = Date.now() + 5000;
      for (;;) {
        const [mail] = await t.db.getRepository(OutboxMessageEntity).find({ where: { to: 'signer@example.in' } });
        if (mail?.status === 'sent') break;
        if (Date.now() > deadline) throw new Error('the e-mail waited behind the hanging deliveries');
        await new Promise((r) => setTimeout(r, 50));
      }
      // Meanwhile every slot of the webhooks' lane is still waiting on a receiver.
      const pending = await t.db.getRepository(WebhookDeliveryEntity).count({ where: { status: 'pending' } });
      expect(pending).toBeGreaterThanOrEqual(hooks.length);
      expect(hanging.length).toBeGreaterThanOrEqual(4);
    } finally {
      await runner.stop();
    }
    for (const h of hooks) await t.http.delete(`/api/webhooks/${h.id}`).set('apikey', key).expect(200);
  });

  it('with SMTP failing and a receiver answering 500, the request completes and the other webhook gets every event', async () => {
    const bad = await createHook('/bad-3');
    const good = await createHook('/good-3');
    smtpFailing = true;
    try {
      const signer = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '9876543210' };
      const { refId, tokens } = await sendForSigning(
        t,
        key,
        'acme',
        { recipients: [{ ...signer, observer: false, signature_type: 'e-Signature' }], otpRequired: false },
        [{ order: 1, pageNo: [1] }],
      );
      await drain();
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: signer.email });
      await drain();
      expect((await requestRow(t, refId)).status).toBe('completed');
      const events = (await deliveriesOf(good.id)).map((d) => [d.event, d.status]);
      expect(events).toEqual(
        expect.arrayContaining([
          ['request.submitted', 'delivered'],
          ['party.invited', 'delivered'],
          ['party.opened', 'delivered'],
          ['party.signed', 'delivered'],
          ['request.completed', 'delivered'],
        ]),
      );
      expect((await deliveriesOf(bad.id)).every((d) => d.status === 'pending' && d.error)).toBe(true);
      // The e-mails of the same changes are still waiting for the mail server, each on its own retries.
      const mails = await t.db.getRepository(OutboxMessageEntity).find({ where: { refId, channel: 'email' } });
      expect(mails.length).toBeGreaterThanOrEqual(2);
      expect(mails.every((m) => m.status === 'queued' && /451|busy/i.test(m.error ?? ''))).toBe(true);
    } finally {
      smtpFailing = false;
    }
    // The mail server is back: the e-mails go out on their next attempt.
    await settle();
    expect(mailsWith('asha@example.in').length).toBeGreaterThanOrEqual(2);
  });
});
