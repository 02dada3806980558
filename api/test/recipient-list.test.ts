import {
  Limits,
  Messages,
  RecipientListMessages,
  type RecipientListItem,
  type RecipientListResponse,
} from '@esign/contract';
import { randomBytes } from 'node:crypto';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { RecipientListLoginEntity } from '../src/modules/recipient-list/recipient-list-login.entity';
import { OrganisationsService } from '../src/modules/organisations/organisations.service';
import { uploadOk, type Recipient } from './support/requests';
import { orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * /list, the recipient's own list (issue 18, point 13): login with an e-mail or phone, the OTP sent there, a list
 * token, and the requests addressed to that address across organisations with their own sign links. Nobody learns
 * whether an address has requests, nobody sees another person's rows, and guessing is bounded.
 */

const ASHA = { name: 'Asha Rao', email: 'Asha.List@Example.in', phone: '+919876500001' };
const signer = (p: { name: string; email: string; phone: string }): Recipient => ({
  name: p.name,
  email: p.email,
  phoneNumber: p.phone,
  observer: false,
  signature_type: 'e-Signature',
});
const VIKRAM = { name: 'Vikram Shah', email: 'vikram.list@example.in', phone: '9123400002' };
const PRIYA = { name: 'Priya Menon', email: 'priya.list@example.in', phone: '9988700003' };

describe('the recipient list (/list): OTP login and the requests addressed to the recipient', () => {
  let t: TestApp;
  let acme: string;
  let globex: string;
  /** Ref IDs by what they are. */
  const refs: Record<string, number> = {};
  /** Asha's invitation links, by Ref ID (from the e-mails). */
  const invitations: Record<number, string> = {};

  const login = (identifier: unknown) => t.http.post('/v1/recipient/login').send({ identifier });
  const verify = (id: unknown, otp: unknown) => t.http.post('/v1/recipient/verify').send({ id, otp });
  const list = (token?: string) => {
    const req = t.http.get('/v1/recipient/requests');
    return token === undefined ? req : req.set('authorization', `Bearer ${token}`);
  };
  const outboxTo = (to: string) =>
    t.db.getRepository(OutboxMessageEntity).find({ where: { to }, order: { id: 'DESC' } });
  const latestCode = async (to: string) => /\b(\d{6})\b/.exec((await outboxTo(to))[0]?.text ?? '')?.[1];
  /** A new hour: the per-address and per-network limits start again. */
  const nextHour = () => t.clock.advance(3601);

  /** Login and verify: the list token. */
  async function signInAs(identifier: string, to: string): Promise<string> {
    const started = await login(identifier).expect(200);
    const code = await latestCode(to);
    expect(code).toMatch(/^\d{6}$/);
    return (await verify(started.body.id, code).expect(200)).body.token as string;
  }

  async function send(key: string, orgId: string, recipients: Recipient[], checkOrder = false): Promise<number> {
    const up = await uploadOk(t, key, orgId, { recipients, checkOrder, otpRequired: false });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({
        orgId,
        data: up.requests.filter((r) => !r.observer).map((r) => ({ refId: up.refId, order: r.order, pageNo: [1] })),
      })
      .expect(200);
    t.clock.advance(60);
    return up.refId;
  }

  beforeAll(async () => {
    t = await startTestApp();
    const orgs = t.app.get(OrganisationsService);
    await orgs.create({ id: 'acme', name: 'Acme Corp', tag: 'acme' });
    await orgs.create({ id: 'globex', name: 'Globex Ltd', tag: 'globex' });
    await t.http
      .put('/api/organisations/globex')
      .set('apikey', await orgApiKey(t, 'globex'))
      .send({
        time_zone: 'Europe/London',
      });
    acme = await orgApiKey(t, 'acme');
    globex = await orgApiKey(t, 'globex');
    // Oldest first: Asha signs in parallel with Vikram (acme); Asha is second in a sequential request (globex); Asha
    // rejected one (acme); Asha receives a copy (acme); a draft to Asha (never sent); a request to Vikram only.
    refs.parallel = await send(acme, 'acme', [signer(ASHA), signer(VIKRAM)]);
    refs.sequential = await send(globex, 'globex', [signer(PRIYA), signer(ASHA)], true);
    refs.rejected = await send(acme, 'acme', [signer(ASHA)]);
    refs.copy = await send(acme, 'acme', [
      signer(VIKRAM),
      { name: ASHA.name, email: ASHA.email.toUpperCase(), phoneNumber: '98765 00001', observer: true },
    ]);
    refs.draft = (await uploadOk(t, acme, 'acme', { recipients: [signer(ASHA)] })).refId;
    refs.vikramOnly = await send(acme, 'acme', [signer(VIKRAM)]);
    for (const m of await outboxTo(ASHA.email))
      if (m.kind === 'invitation' && m.channel === 'email' && m.refId)
        invitations[m.refId] = /https?:\/\/\S+\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(m.text)![0];
    const rejectLink = new URL(invitations[refs.rejected]);
    await t.http
      .post(`/v1/esign/reject/acme/${refs.rejected}/1`)
      .set('x-sign-token', rejectLink.searchParams.get('token')!)
      .send({ remark: 'Not mine' })
      .expect(200);
  });
  afterAll(() => t.close());
  beforeEach(() => nextHour());

  it('sends the OTP to the address and lists its requests across organisations, newest first, with their links', async () => {
    // Typed with other capitals and spaces: the same address.
    const started = await login('  asha.list@EXAMPLE.in ').expect(200);
    expect(started.body).toEqual({
      code: 200,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message: RecipientListMessages.otpSent,
      resend_after: Limits.otpResendSeconds,
      expires_in: Limits.otpValiditySeconds,
    });
    const [mail] = await outboxTo('asha.list@example.in');
    expect(mail).toMatchObject({ kind: 'otp', channel: 'email' });
    expect(mail.subject).not.toMatch(/\d{6}/);
    const code = /\b(\d{6})\b/.exec(mail.text)![1];
    const verified = await verify(started.body.id, code).expect(200);
    expect(verified.body).toEqual({
      code: 200,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: new Date(t.clock.now().getTime() + Limits.recipientListSessionSeconds * 1000).toISOString(),
    });

    const res = await list(verified.body.token).expect(200);
    const body = res.body as RecipientListResponse;
    expect(body.identifier).toBe('asha.list@example.in');
    const rows = body.requests;
    expect(rows.map((r) => r.ref_id)).toEqual([refs.copy, refs.rejected, refs.sequential, refs.parallel]);
    const by = Object.fromEntries(rows.map((r) => [r.ref_id, r])) as Record<number, RecipientListItem>;
    expect(by[refs.parallel]).toEqual({
      ref_id: refs.parallel,
      order: 1,
      filename: 'normal.pdf',
      organisation: 'Acme Corp',
      sent_at: expect.any(String),
      time_zone: 'Asia/Kolkata',
      role: 'signer',
      status: 'in-progress',
      request_status: 'in-progress',
      // The very link of the invitation: the party's nonce, not a new one.
      sign_url: invitations[refs.parallel],
    });
    expect(by[refs.sequential]).toMatchObject({
      organisation: 'Globex Ltd',
      time_zone: 'Europe/London',
      order: 2,
      status: 'waiting',
      sign_url: null,
    });
    expect(by[refs.rejected]).toMatchObject({ status: 'rejected', request_status: 'rejected', sign_url: null });
    expect(by[refs.copy]).toMatchObject({ role: 'copy', status: 'waiting', sign_url: null });
    // Nothing about anyone else: no other party's name, address or link.
    const text = JSON.stringify(body);
    for (const other of [VIKRAM.name, VIKRAM.email, PRIYA.name, PRIYA.email]) expect(text).not.toContain(other);
    expect(text).not.toContain(String(refs.draft));
    expect(text).not.toContain(String(refs.vikramOnly));

    // The link opens Asha's own signing request.
    const link = new URL(by[refs.parallel].sign_url!);
    const ref = await t.http
      .get(`/v1/reference/acme/${refs.parallel}/1`)
      .set('x-sign-token', link.searchParams.get('token')!)
      .expect(200);
    expect(ref.body.request).toMatchObject({ name: ASHA.name, email: ASHA.email, orderNo: 1 });
    expect((await t.http.get(`${link.pathname}${link.search}`).expect(200)).text).toContain('signer-app');
  });

  it('finds the same requests by phone number, as typed in any Indian form', async () => {
    const token = await signInAs('098765 00001', ASHA.phone);
    expect((await outboxTo(ASHA.phone))[0]).toMatchObject({ kind: 'otp', channel: 'sms' });
    const rows = (await list(token).expect(200)).body.requests as RecipientListItem[];
    expect(rows.map((r) => r.ref_id)).toEqual([refs.copy, refs.rejected, refs.sequential, refs.parallel]);
  });

  it("never shows another person's requests: Vikram's list is his own", async () => {
    const token = await signInAs(VIKRAM.email, VIKRAM.email);
    const rows = (await list(token).expect(200)).body.requests as RecipientListItem[];
    expect(rows.map((r) => r.ref_id).sort()).toEqual([refs.parallel, refs.copy, refs.vikramOnly].sort());
    expect(JSON.stringify(rows)).not.toContain(ASHA.email);
    // Each row carries Vikram's own link, not Asha's.
    const parallel = rows.find((r) => r.ref_id === refs.parallel)!;
    expect(parallel.order).toBe(2);
    expect(parallel.sign_url).not.toBe(invitations[refs.parallel]);
  });

  it('answers an address without requests exactly as one with requests, and sends it nothing', async () => {
    const before = await t.db.getRepository(OutboxMessageEntity).count();
    const unknown = await login('nobody@example.in').expect(200);
    const known = await login(ASHA.email).expect(200);
    expect(await t.db.getRepository(OutboxMessageEntity).count()).toBe(before + 1);
    expect({ ...unknown.body, id: 'x' }).toEqual({ ...known.body, id: 'x' });
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(known.headers).sort());
    // Verifying answers alike: no code can match for the unknown address.
    for (const id of [unknown.body.id, known.body.id]) {
      const wrong = await verify(id, '000000').expect(400);
      expect(wrong.body).toMatchObject({ message: Messages.otpInvalid, attempts_left: 4 });
    }
    // So do the limits: another OTP within 30 s is refused for both.
    for (const identifier of ['nobody@example.in', ASHA.email]) {
      const again = await login(identifier).expect(429);
      expect(again.body.message).toBe(RecipientListMessages.resendWait.replace('{seconds}', '30'));
      expect(again.headers['retry-after']).toBe('30');
    }
  });

  it('refuses a wrong code, locks the OTP after 5 attempts, and lets an OTP expire after 10 minutes', async () => {
    const started = await login(ASHA.email).expect(200);
    const code = (await latestCode(ASHA.email.toLowerCase()))!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 1; i <= Limits.otpMaxVerifyAttempts; i++) {
      const res = await verify(started.body.id, wrong).expect(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', message: Messages.otpInvalid });
      expect(res.body.attempts_left).toBe(Limits.otpMaxVerifyAttempts - i);
    }
    const locked = await verify(started.body.id, code).expect(429);
    expect(locked.body.message).toBe(RecipientListMessages.tooManyAttempts);

    t.clock.advance(Limits.otpResendSeconds);
    const second = await login(ASHA.email).expect(200);
    const fresh = (await latestCode(ASHA.email.toLowerCase()))!;
    t.clock.advance(Limits.otpValiditySeconds);
    const expired = await verify(second.body.id, fresh).expect(400);
    expect(expired.body).toMatchObject({ message: Messages.otpExpired, expired: true });

    // A newer OTP replaces the older one.
    const third = await login(ASHA.email).expect(200);
    const thirdCode = (await latestCode(ASHA.email.toLowerCase()))!;
    t.clock.advance(Limits.otpResendSeconds);
    const fourth = await login(ASHA.email).expect(200);
    expect((await verify(third.body.id, thirdCode).expect(400)).body.message).toBe(Messages.otpExpired);
    const token = (await verify(fourth.body.id, await latestCode(ASHA.email.toLowerCase())).expect(200)).body.token;
    // A used login gives no second token.
    expect((await verify(fourth.body.id, '123456').expect(400)).body.message).toBe(RecipientListMessages.loginUnknown);
    await list(token).expect(200);
  });

  it('refuses bad input with a clear 400 and writes nothing', async () => {
    const rows = () => t.db.getRepository(RecipientListLoginEntity).count();
    const before = await rows();
    for (const identifier of [undefined, '', 'asha', 'asha@', '12345', '+1 415 555 0100', 42, { $ne: 1 }]) {
      const res = await login(identifier).expect(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', message: RecipientListMessages.identifierInvalid });
    }
    for (const [id, otp] of [
      ['x', '123456'],
      [undefined, '123456'],
      ['00000000-0000-4000-8000-000000000000', '123456'],
    ])
      expect((await verify(id, otp).expect(400)).body.message).toBe(RecipientListMessages.loginUnknown);
    for (const otp of ['12345', 'abcdef', '', null, '1234567'])
      expect((await verify('00000000-0000-4000-8000-000000000000', otp).expect(400)).body.message).toBe(
        RecipientListMessages.otpFormat,
      );
    expect(await rows()).toBe(before);
  });

  it('limits OTPs: 30 s apart and 5 an hour per address, and per network address across addresses', async () => {
    for (let i = 0; i < Limits.otpMaxSendsPerHour; i++) {
      await login(PRIYA.email).expect(200);
      t.clock.advance(Limits.otpResendSeconds);
    }
    const sixth = await login(PRIYA.email).expect(429);
    expect(sixth.body.message).toBe(RecipientListMessages.tooManySends);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);

    nextHour();
    for (let i = 0; i < Limits.recipientListOtpsPerIpPerHour; i++) await login(`someone${i}@example.in`).expect(200);
    const next = await login('someone-else@example.in').expect(429);
    expect(next.body.message).toBe(RecipientListMessages.tooManyFromNetwork);
    nextHour();
    await login('someone-else@example.in').expect(200);
  });

  it('answers 401 without a token, with a wrong one, and once the token has expired', async () => {
    for (const header of [undefined, 'Bearer', `Bearer ${randomBytes(32).toString('base64url')}`, 'Basic abc']) {
      const req = t.http.get('/v1/recipient/requests');
      const res = await (header ? req.set('authorization', header) : req).expect(401);
      expect(res.body).toMatchObject({ error: 'SESSION_EXPIRED', message: RecipientListMessages.sessionInvalid });
    }
    const token = await signInAs(ASHA.email, ASHA.email.toLowerCase());
    // Not in the query, and not as a staff key.
    await t.http.get(`/v1/recipient/requests?token=${token}`).expect(401);
    await t.http.get('/api/requests').set('apikey', token).expect(401);
    t.clock.advance(Limits.recipientListSessionSeconds - 1);
    await list(token).expect(200);
    t.clock.advance(1);
    await list(token).expect(401);
    // Only hashes are kept.
    const stored = await t.db.getRepository(RecipientListLoginEntity).find();
    expect(JSON.stringify(stored)).not.toContain(token);
  });
});
