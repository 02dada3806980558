import { WATCHDOG_MAX_RETRIES, WatchdogMessages, type WatchdogFinding, type WebhookPayload } from '@esign/contract';
import { createServer, type Server } from 'node:http';
import { UsersService } from '../src/modules/auth/users.service';
import { JobEntity } from '../src/modules/jobs/job.entity';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { SigningEngine } from '../src/modules/signing/pdf/engine';
import { WatchdogService } from '../src/modules/watchdog/watchdog.service';
import {
  drain,
  partyRow,
  requestRow,
  sendForSigning,
  signAs,
  verifyPdf,
  signedPdf,
  numberedSigner as signer,
} from './support/signing';
import { startSmtpServer } from './support/smtp';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

interface Signer {
  name: string;
  email: string;
  phoneNumber: string;
}
const recipients = (...s: Signer[]) => s.map((x) => ({ ...x, observer: false, signature_type: 'e-Signature' }));

/** The value of one series in the Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * Issue 24's watchdog: a seal job made to fail past its attempts is completed by the watchdog's retry, with no command
 * run; a seal that keeps failing is reported (state, request.stuck webhook, e-mail, metric, the banner's list) and a
 * person's Retry queues it again; a party stuck in 'signing' is reported and never moved; an invitation whose
 * messages failed is sent again; a sequential request's next signer who was never invited is invited. Nothing forced:
 * every change is the flow's own call, with its audit events, and every chain still verifies.
 */
describe('the watchdog for stuck requests', () => {
  let t: TestApp;
  let key: string;
  let staffKey: string;
  let receiver: Server;
  const stuckEvents: WebhookPayload<Record<string, unknown>>[] = [];

  const watchdog = () => t.app.get(WatchdogService);
  /** Runs every job due over the next hours of the test's clock (every retry of the seal job). */
  const settle = async (hours = 8) => {
    for (let i = 0; i < hours; i++) {
      await drain(t);
      t.clock.advance(3600);
    }
    await drain(t);
  };
  const findings = async (filter: object = {}): Promise<WatchdogFinding[]> =>
    (
      await t.http
        .get('/api/watchdog/findings')
        .set('apikey', key)
        .query({ filter: JSON.stringify(filter) })
        .expect(200)
    ).body;
  const trail = async (refId: number) => (await t.http.get(`/api/requests/${refId}/audit`).set('apikey', key)).body;
  const send = async (...s: Signer[]) =>
    sendForSigning(
      t,
      key,
      'acme',
      { recipients: recipients(...s), otpRequired: false },
      s.map((_, i) => ({ order: i + 1, pageNo: [1] })),
    );

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        stuckEvents.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // The first five seals fail where every signature is applied and the seal is next.
    t = await startTestApp({ ESIGN_TEST_FAULTS: 'seal.before-completion=fail*5' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await t.app.get(UsersService).setEmail('alice', 'alice@acme.example');
    await t.app.get(UsersService).create('acme', 'sam', 'sam-password-1', 'sam@acme.example', 'staff');
    key = await orgApiKey(t, 'acme');
    staffKey = await signIn(t, 'sam', 'sam-password-1');
    const port = (receiver.address() as { port: number }).port;
    await t.http
      .post('/api/webhooks')
      .set('apikey', key)
      .send({ url: `http://127.0.0.1:${port}/stuck`, events: ['request.stuck'] })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });

  it('completes a request whose seal job failed past its attempts, by queuing the seal again, without a command', async () => {
    const a = signer(1);
    const { refId, tokens } = await send(a);
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: a.email });
    await settle();
    const failedJob = await t.db.getRepository(JobEntity).findOneByOrFail({ type: 'request.seal', status: 'failed' });
    expect(failedJob.attempts).toBe(5);
    expect(await requestRow(t, refId)).toMatchObject({ status: 'in-progress', signersDone: 1 });

    const first = await watchdog().scan();
    expect(first).toMatchObject({ seen: 1, retried: 1, reported: 0 });
    const [finding] = await findings({ kind: 'seal_stuck' });
    expect(finding).toMatchObject({ refId, state: 'open', retries: 1, retryable: true, party_order: null });
    expect(finding.detail).toBe(
      WatchdogMessages.sealFailed
        .replace('{attempts}', '5')
        .replace('{error}', (await requestRow(t, refId)).sealError!.slice(0, 300)),
    );
    await drain(t);
    const done = await requestRow(t, refId);
    expect(done.status).toBe('completed');
    expect((await watchdog().scan()).resolved).toBe(1);
    expect((await findings({ resolved: true }))[0]).toMatchObject({ id: finding.id, state: 'resolved' });

    // The seal's own events tell the story; the watchdog only queued the job, and said so.
    const types = (await trail(refId)).events.map((e: { type: string }) => e.type);
    expect(types.filter((x: string) => x === 'request.seal_failed')).toHaveLength(5);
    expect(types.slice(-2)).toEqual(['request.watchdog_retry', 'request.completed']);
    expect((await trail(refId)).chain.intact).toBe(true);
    expect((await verifyPdf(t, await signedPdf(t, refId))).problems).toEqual([]);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    expect(sample(metrics, 'esign_watchdog_retries_total{kind="seal_stuck"}')).toBe(1);
    expect(sample(metrics, 'esign_watchdog_findings{kind="seal_stuck",state="open"}')).toBe(0);
    expect(stuckEvents).toHaveLength(0);
  });

  it(`reports a seal that still fails after ${WATCHDOG_MAX_RETRIES} retries: state, request.stuck webhook, e-mail, metric; a person's Retry queues it again`, async () => {
    const engine = t.app.get(SigningEngine);
    const broken = jest.spyOn(engine, 'prepareCompletion').mockRejectedValue(new Error('the seal key is unreadable'));
    try {
      const b = signer(2);
      const { refId, tokens } = await send(b);
      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: b.email });
      await settle();
      for (let i = 0; i < WATCHDOG_MAX_RETRIES; i++) {
        expect((await watchdog().scan()).retried).toBe(1);
        await settle();
      }
      const outcome = await watchdog().scan();
      expect(outcome).toMatchObject({ retried: 0, reported: 1 });
      const [finding] = await findings({ state: 'reported' });
      expect(finding).toMatchObject({ refId, kind: 'seal_stuck', retries: WATCHDOG_MAX_RETRIES, retryable: true });
      expect(finding.detail).toContain('the seal key is unreadable');
      // Told once: a later scan reports nothing new.
      expect((await watchdog().scan()).reported).toBe(0);
      await drain(t);
      expect(stuckEvents.map((e) => e.data)).toEqual([
        expect.objectContaining({ refId, kind: 'seal_stuck', findingId: finding.id, status: 'in-progress' }),
      ]);
      const mails = await t.db.getRepository(OutboxMessageEntity).find({ where: { kind: 'watchdog' } });
      expect(mails.map((m) => m.to)).toEqual(['alice@acme.example']);
      expect(mails[0].subject).toBe(`Request ${refId} needs attention`);
      expect(mails[0].text).toContain(`Ref ID ${refId}`);
      const metrics = (await t.http.get('/metrics').expect(200)).text;
      expect(sample(metrics, 'esign_watchdog_findings{kind="seal_stuck",state="reported"}')).toBe(1);
      // Nothing was forced: the request is still in progress, as the seal left it.
      expect((await requestRow(t, refId)).status).toBe('in-progress');

      // The banner's Retry, by a staff user: the seal is queued again, audited with who asked.
      broken.mockRestore();
      // A staff user's session (signed in now: the test's clock has moved hours).
      staffKey = await signIn(t, 'sam', 'sam-password-1');
      const listed = await t.http.get('/api/watchdog/findings').set('apikey', staffKey).expect(200);
      expect(listed.body.map((f: WatchdogFinding) => f.id)).toContain(finding.id);
      const retried = await t.http
        .post(`/api/watchdog/findings/${finding.id}/retry`)
        .set('apikey', staffKey)
        .send({})
        .expect(202);
      expect(retried.body).toMatchObject({ message: WatchdogMessages.retried, finding: { state: 'open' } });
      const last = (await trail(refId)).events.at(-1);
      expect(last).toMatchObject({ type: 'request.watchdog_retry', actor: expect.stringMatching(/^user:/) });
      await drain(t);
      expect((await requestRow(t, refId)).status).toBe('completed');
      await watchdog().scan();
      await t.http.post(`/api/watchdog/findings/${finding.id}/retry`).set('apikey', staffKey).send({}).expect(409);
      // Another organisation's key sees none of it.
      await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
      const other = await orgApiKey(t, 'globex');
      await t.http.get(`/api/watchdog/findings/${finding.id}`).set('apikey', other).expect(404);
      expect((await t.http.get('/api/watchdog/findings').set('apikey', other).expect(200)).body).toEqual([]);
    } finally {
      broken.mockRestore();
    }
  });

  it("reports a party in 'signing' longer than its method allows, and never moves it", async () => {
    const c = signer(3);
    const { refId, tokens } = await send(c);
    const h = { 'x-sign-token': tokens[1] };
    const base = `acme/${refId}/1`;
    const ref = await t.http.get(`/v1/reference/${base}`).set(h).expect(200);
    await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'opened', userAgent: {} }).expect(200);
    await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }).expect(200);
    await t.http.get(`/v1/init/acme/${ref.body.request.requestId}?method=2`).set(h).expect(200);
    t.clock.advance(3 * 3600);
    expect((await watchdog().scan()).seen).toBe(0);
    t.clock.advance(2 * 3600);
    expect((await watchdog().scan()).reported).toBe(1);
    const [finding] = await findings({ kind: 'signing_too_long' });
    expect(finding).toMatchObject({ refId, party_order: 1, state: 'reported', retryable: false, retries: 0 });
    expect(finding.detail).toBe(
      WatchdogMessages.signingTooLong
        .replace('{order}', '1')
        .replace('{method}', 'e-Signature')
        .replace('{duration}', '5 h'),
    );
    const refused = await t.http.post(`/api/watchdog/findings/${finding.id}/retry`).set('apikey', key).send({});
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(WatchdogMessages.notRetryable);
    expect((await partyRow(t, refId, 1)).status).toBe('signing');
    // The signer comes back and signs: resolved at the next scan.
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: c.email });
    await drain(t);
    await watchdog().scan();
    expect((await t.http.get(`/api/watchdog/findings/${finding.id}`).set('apikey', key).expect(200)).body.state).toBe(
      'resolved',
    );
  });

  it("invites a sequential request's next signer who was never invited, through the lifecycle", async () => {
    const [d, e] = [signer(4), signer(5)];
    const up = await sendForSigning(
      t,
      key,
      'acme',
      { recipients: recipients(d, e), otpRequired: false, checkOrder: true },
      [
        { order: 1, pageNo: [1] },
        { order: 2, pageNo: [1] },
      ],
    );
    await signAs(t, { orgId: 'acme', refId: up.refId, order: 1, token: up.tokens[1], email: d.email });
    await drain(t);
    // As if the invitation had been lost (a bug, an operator's hand): signer 2 waits with signer 1 done.
    await t.db.getRepository(PartyEntity).update({ refId: up.refId, order: 2 }, { status: 'waiting', invitedAt: null });
    const scan = await watchdog().scan();
    expect(scan.retried).toBe(1);
    const party = await partyRow(t, up.refId, 2);
    expect(party.status).toBe('in-progress');
    const events = (await trail(up.refId)).events.slice(-2);
    expect(events.map((x: { type: string; actor: string }) => [x.type, x.actor])).toEqual([
      ['party.invited', 'watchdog'],
      ['request.watchdog_retry', 'watchdog'],
    ]);
    await drain(t);
    // The lifecycle's invitation: a new link by e-mail and SMS, as for any invitation.
    const invitations = await t.db
      .getRepository(OutboxMessageEntity)
      .find({ where: { refId: up.refId, partyOrder: 2, kind: 'invitation' } });
    expect(invitations.map((m) => m.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
  });
});

describe('the watchdog and invitations that were never sent', () => {
  let t: TestApp;
  let key: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let failing = true;

  beforeAll(async () => {
    smtp = await startSmtpServer({ failing: () => failing });
    t = await startTestApp({
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      SMS_URL: 'http://127.0.0.1:9/sms',
    });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends a failed invitation again (the same message and link) once the mail server is back, and resolves it', async () => {
    const a = signer(6);
    const { refId } = await sendForSigning(t, key, 'acme', { recipients: recipients(a), otpRequired: false }, [
      { order: 1, pageNo: [1] },
    ]);
    for (let i = 0; i < 6; i++) {
      await drain(t);
      t.clock.advance(3600);
    }
    const repo = t.db.getRepository(OutboxMessageEntity);
    const failed = await repo.find({ where: { refId, kind: 'invitation' } });
    expect(failed.map((m) => m.status)).toEqual(['failed', 'failed']);

    failing = false;
    const scan = await t.app.get(WatchdogService).scan();
    expect(scan).toMatchObject({ seen: 1, retried: 1 });
    await drain(t);
    const all = await repo.find({ where: { refId, kind: 'invitation' }, order: { id: 'ASC' } });
    // Copies of the failed messages (the failed rows stay as the record): the e-mail went, the SMS gateway is still down.
    const resent = all.slice(2);
    expect(resent.map((m) => m.channel).sort()).toEqual(['email', 'sms']);
    const email = resent.find((m) => m.channel === 'email')!;
    expect(email.status).toBe('sent');
    expect(email.text).toBe(failed.find((m) => m.channel === 'email')!.text);
    expect(smtp.mails.some((m) => m.to.includes(a.email))).toBe(true);
    // The e-mail went: nothing stuck any more.
    expect((await t.app.get(WatchdogService).scan()).resolved).toBe(1);
    expect((await requestRow(t, refId)).status).toBe('in-progress');
  });
});
