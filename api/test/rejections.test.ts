import type { WebhookPayload } from '@esign/contract';
import { createServer, type Server } from 'node:http';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { UsersService } from '../src/modules/auth/users.service';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { OrganisationsService } from '../src/modules/organisations/organisations.service';
import { uploadOk, type Recipient } from './support/requests';
import { drain, partyRow, signAs, tokensOf } from './support/signing';
import { orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 18, point 2 (server half): a rejection reaches the staff user who sent the request (by e-mail, when they have
 * one) and every other party who had been invited, saying who rejected, when (in the organisation's time zone) and
 * why; the webhooks carry the remark and the time; the request's detail shows them.
 */

const ASHA: Recipient = {
  name: 'Asha Rao',
  email: 'asha.rej@example.in',
  phoneNumber: '+91 98765 43210',
  observer: false,
  signature_type: 'e-Signature',
};
const VIKRAM: Recipient = {
  name: 'Vikram Shah',
  email: 'vikram.rej@example.in',
  phoneNumber: '9123456789',
  observer: false,
  signature_type: 'e-Signature',
};
const PRIYA: Recipient = {
  name: 'Priya Menon',
  email: 'priya.rej@example.in',
  phoneNumber: '9988776650',
  observer: false,
  signature_type: 'e-Signature',
};
const MEERA: Recipient = {
  name: 'Meera Iyer',
  email: 'meera.rej@example.in',
  phoneNumber: '9988776655',
  observer: true,
};
const REMARK = 'Clause 4 says 40 days; we agreed on 30.';

describe('a rejection is told to the sender and the invited parties, with who, when and why', () => {
  let t: TestApp;
  let receiver: Server;
  let hookUrl: string;
  const received: WebhookPayload[] = [];
  let alice: string;
  let bob: string;
  let orgKey: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookPayload);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    t = await startTestApp();
    await t.app.get(OrganisationsService).create({ id: 'acme', name: 'Acme Corp', tag: 'acme' });
    const users = t.app.get(UsersService);
    await users.create('acme', 'alice', 'alice-password', 'Alice.Sender@Acme.example');
    await users.create('acme', 'bob', 'bob-password');
    orgKey = await orgApiKey(t, 'acme', 'ci');
    await t.http
      .post('/api/webhooks')
      .set('apikey', orgKey)
      .send({ url: hookUrl, events: ['party.rejected', 'request.rejected'] })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });
  beforeEach(async () => {
    received.length = 0;
    // Fresh session keys: the tests move the clock by hours.
    alice = await signIn(t, 'alice', 'alice-password');
    bob = await signIn(t, 'bob', 'bob-password');
  });

  /** Sends a request with these keys' user as the sender; answers the Ref ID and the live tokens. */
  async function send(key: string, recipients: Recipient[], checkOrder: boolean) {
    const up = await uploadOk(t, key, 'acme', { recipients, checkOrder, otpRequired: false });
    const signers = up.requests.filter((r) => !r.observer);
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: signers.map((r) => ({ refId: up.refId, order: r.order, pageNo: [1] })) })
      .expect(200);
    return { refId: up.refId, tokens: await tokensOf(t, key, 'acme', up.refId) };
  }

  const reject = (refId: number, order: number, token: string, remark = REMARK) =>
    t.http.post(`/v1/esign/reject/acme/${refId}/${order}`).set('x-sign-token', token).send({ remark }).expect(200);

  const rejectedMail = (refId: number) =>
    t.db.getRepository(OutboxMessageEntity).find({ where: { refId, kind: 'rejected' }, order: { id: 'ASC' } });

  const auditData = async (refId: number) =>
    (await t.db.getRepository(AuditEventEntity).findOneByOrFail({ refId, type: 'request.rejected' })).data;

  it('e-mails the sender and the invited parties (signed or not), not those whose turn had not come nor copies', async () => {
    // Sequential: Asha signs, then Vikram is invited and rejects; Priya's turn never came; Meera receives a copy.
    const { refId, tokens } = await send(alice, [ASHA, VIKRAM, PRIYA, MEERA], true);
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: ASHA.email });
    await drain(t);
    const next = await tokensOf(t, alice, 'acme', refId);
    expect(Object.keys(next)).not.toContain('3');
    expect((await partyRow(t, refId, 1)).status).toBe('completed');
    expect((await partyRow(t, refId, 3)).invitedAt).toBeNull();
    t.clock.advance(3600);
    const at = t.clock.now();
    await reject(refId, 2, next[2]);

    const mails = await rejectedMail(refId);
    // Asha (e-mail and SMS) and the sender (e-mail); nobody else.
    expect(mails.map((m) => [m.channel, m.to]).sort()).toEqual(
      [
        ['email', ASHA.email],
        ['email', 'Alice.Sender@Acme.example'],
        ['sms', '+919876543210'],
      ].sort(),
    );
    // 09:00 UTC + an hour and a little: 22 Nov 2026, 3:30 pm-ish in India, written by formatDateTime.
    const when = new Intl.DateTimeFormat('en-IN', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hour12: true,
      timeZoneName: 'short',
      timeZone: 'Asia/Kolkata',
    }).format(at);
    expect(when).toMatch(/^22 Nov 2026, \d{1,2}:\d\d pm IST$/);
    const toAsha = mails.find((m) => m.channel === 'email' && m.to === ASHA.email)!;
    expect(toAsha.partyOrder).toBe(1);
    expect(toAsha.text).toContain(`Vikram Shah rejected "normal.pdf" on ${when}.`);
    expect(toAsha.text).toContain(`Remark: ${REMARK}`);
    expect(toAsha.html).toContain('Remark: Clause 4 says 40 days; we agreed on 30.');
    expect(mails.find((m) => m.channel === 'sms')!.text).toContain(`rejected by Vikram Shah on ${when}.`);

    const toSender = mails.find((m) => m.to === 'Alice.Sender@Acme.example')!;
    expect(toSender.partyOrder).toBeNull();
    expect(toSender.subject).toBe(`Rejected by Vikram Shah: "normal.pdf" (Ref ID ${refId})`);
    expect(toSender.text).toContain('Hello alice,');
    expect(toSender.text).toContain(
      `Vikram Shah <${VIKRAM.email}>, recipient 2, rejected "normal.pdf" (Ref ID ${refId}) on ${when}.`,
    );
    expect(toSender.text).toContain(`Remark: ${REMARK}`);

    for (const who of [PRIYA.email, MEERA.email, VIKRAM.email]) expect(mails.filter((m) => m.to === who)).toEqual([]);
    expect(await auditData(refId)).toEqual({ senderNotified: true, told: [1] });

    // The request's detail: the rejecting party's remark and time; nobody else's.
    const detail = await t.http.get(`/api/requests/${refId}`).set('apikey', alice).expect(200);
    const parties = detail.body.data as {
      order: number;
      status: string;
      rejected_at?: string | null;
      remark?: string;
    }[];
    expect(parties.find((p) => p.order === 2)).toMatchObject({
      status: 'rejected',
      rejected_at: at.toISOString(),
      remark: REMARK,
    });
    for (const p of parties.filter((p) => p.order !== 2)) expect(p.rejected_at ?? null).toBeNull();
  });

  it('posts the remark and the time in the party.rejected and request.rejected webhooks', async () => {
    const { refId, tokens } = await send(alice, [ASHA, VIKRAM], false);
    t.clock.advance(90);
    const at = t.clock.now();
    await reject(refId, 1, tokens[1]);
    await drain(t);
    const byEvent = Object.fromEntries(received.map((w) => [w.event, w]));
    expect(Object.keys(byEvent).sort()).toEqual(['party.rejected', 'request.rejected']);
    expect(byEvent['party.rejected'].data).toEqual({
      refId,
      order: 1,
      name: ASHA.name,
      email: ASHA.email,
      status: 'rejected',
      remark: REMARK,
      rejectedAt: at.toISOString(),
    });
    expect(byEvent['request.rejected'].data).toEqual({
      refId,
      filename: 'normal.pdf',
      status: 'rejected',
      signers: 2,
      signed: 0,
      rejectedBy: { order: 1, name: ASHA.name, email: ASHA.email },
      remark: REMARK,
      rejectedAt: at.toISOString(),
    });
    // Parallel: Vikram had been invited and hears of it; the sender too.
    expect((await rejectedMail(refId)).filter((m) => m.channel === 'email').map((m) => m.to)).toEqual([
      VIKRAM.email,
      'Alice.Sender@Acme.example',
    ]);
  });

  it("writes the time in the organisation's time zone", async () => {
    await t.http.put('/api/organisations/acme').set('apikey', alice).send({ time_zone: 'Europe/London' }).expect(200);
    try {
      const { refId, tokens } = await send(alice, [ASHA, VIKRAM], false);
      await reject(refId, 2, tokens[2]);
      const london = new Intl.DateTimeFormat('en-IN', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        hour12: true,
        timeZoneName: 'short',
        timeZone: 'Europe/London',
      }).format(t.clock.now());
      expect(london).toMatch(/ GMT$/);
      for (const m of (await rejectedMail(refId)).filter((m) => m.channel === 'email')) {
        expect(m.text).toContain(`on ${london}.`);
        expect(m.text).not.toContain('IST');
      }
    } finally {
      await t.http.put('/api/organisations/acme').set('apikey', alice).send({ time_zone: 'Asia/Kolkata' }).expect(200);
    }
  });

  it('sends the sender nothing without an e-mail address or when an API key sent it, and says so in the audit', async () => {
    for (const [key, reason] of [
      [bob, 'no e-mail address'],
      [orgKey, 'sent with an organisation API key'],
    ] as const) {
      const { refId, tokens } = await send(key, [ASHA, VIKRAM], false);
      await reject(refId, 1, tokens[1]);
      const mails = (await rejectedMail(refId)).filter((m) => m.channel === 'email');
      expect(mails.map((m) => m.to)).toEqual([VIKRAM.email]);
      expect(await auditData(refId)).toEqual({ senderNotified: false, senderReason: reason, told: [2] });
    }
    // Once bob has an address, he hears of the next one.
    await t.app.get(UsersService).setEmail('bob', 'bob@acme.example');
    const { refId, tokens } = await send(bob, [ASHA, VIKRAM], false);
    await reject(refId, 1, tokens[1]);
    expect((await rejectedMail(refId)).filter((m) => m.channel === 'email').map((m) => m.to)).toEqual([
      VIKRAM.email,
      'bob@acme.example',
    ]);
  });
});
