import { Headers, Limits, Messages, RecipientMessages } from '@esign/contract';
import { SignerSessionEntity } from '../src/modules/recipients/signer-session.entity';
import { SIGNERS, type Recipient } from './support/requests';
import { drain, latestOtp, partyRow, requestRow, sendForSigning, SIGNATURE_PNG } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const [ASHA, VIKRAM] = SIGNERS;
const eSigner = (r: Recipient): Recipient => ({ ...r, observer: false, signature_type: 'e-Signature' });
const png = `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}`;

/**
 * Issue 18, point 1: a verified OTP protects the signing on the browser that verified it. Verification gives that
 * browser a signer session (x-signer-session); signing, rejecting and sending a selfie on an OTP request need it.
 */
describe('signer sessions: the OTP is bound to the browser that verified it', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  const send = (recipients: Recipient[]) =>
    sendForSigning(
      t,
      key,
      'acme',
      { recipients, otpRequired: true, checkOrder: false },
      recipients.map((_r, i) => ({ order: i + 1, pageNo: [1] })),
    );

  /** One browser of one party: the link token always, the signer session once it has one. */
  const browser = (refId: number, order: number, token: string, email: string) => {
    const base = `acme/${refId}/${order}`;
    let session: string | null = null;
    const h = () => ({ [Headers.signToken]: token, ...(session ? { [Headers.signerSession]: session } : {}) });
    const self = {
      get session() {
        return session;
      },
      set session(value: string | null) {
        session = value;
      },
      reference: () => t.http.get(`/v1/reference/${base}`).set(h()),
      requestId: async () => (await self.reference().expect(200)).body.request.requestId as string,
      /** GET OTP, the code from the outbox, VERIFY: answers the verification. */
      verify: async () => {
        const sent = await t.http.get(`/v1/sendotp/${base}`).set(h()).expect(200);
        const code = await latestOtp(t, email);
        const res = await t.http.post(`/v1/verifyotp/${sent.body.userId}`).set(h()).send({ otp: code }).expect(200);
        if (res.body.session_token) session = res.body.session_token;
        return { res, userId: sent.body.userId as string, code };
      },
      accept: () => t.http.post(`/v1/signer_details/${base}`).set(h()).send({ status: 'signing' }),
      selfie: () => t.http.post(`/v1/signer_details/${base}`).set(h()).send({ status: 'signing', selfie: png }),
      location: () =>
        t.http.post('/v1/get_location').set(h()).send({ latitude: 12.97, longitude: 77.59, orgId: 'acme' }),
      init: async () => t.http.get(`/v1/init/acme/${await self.requestId()}?method=2`).set(h()),
      sign: async () =>
        t.http
          .post(`/v1/esignature/acme/${await self.requestId()}`)
          .set(h())
          .send({ file: png }),
      reject: () => t.http.post(`/v1/esign/reject/${base}`).set(h()).send({ remark: 'Not mine' }),
      retry: async () => t.http.get(`/v1/retry/acme/${await self.requestId()}`).set(h()),
      failed: async () =>
        t.http
          .post(`/v1/failed/acme/${await self.requestId()}`)
          .set(h())
          .send({ send_email: false }),
    };
    return self;
  };

  const needsOtp = (res: { status: number; body: { error?: string; message?: string } }) =>
    expect([res.status, res.body.error, res.body.message]).toEqual([
      401,
      'OTP_REQUIRED',
      RecipientMessages.otpSessionRequired,
    ]);

  it('session A signs; the link alone gets 401; a second device verifies for itself; the sessions end with the signing', async () => {
    const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM)]);
    const a = browser(refId, 1, tokens[1], ASHA.email);
    const verified = await a.verify();
    expect(verified.res.body).toMatchObject({
      verify: true,
      message: Messages.otpVerified,
      session_idle_seconds: Limits.signerSessionIdleSeconds,
    });
    expect(a.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the session's hash is kept.
    expect(JSON.stringify(await t.db.query('SELECT * FROM signer_sessions'))).not.toContain(a.session as string);

    // The browser that verified sees the document; the same link elsewhere is asked for the OTP again.
    const seen = (await a.reference().expect(200)).body.request;
    expect(seen).toMatchObject({ otpVerificationRequired: 'false', auth: true });
    expect(seen.uploadUrl).toMatch(/\/docs\/files\/acme\//);
    const linkOnly = browser(refId, 1, tokens[1], ASHA.email);
    const unseen = (await linkOnly.reference().expect(200)).body.request;
    expect(unseen).toMatchObject({ otpVerificationRequired: 'true', auth: false, uploadUrl: null });

    // Accepting needs no session; every call that signs, rejects, sends a selfie or changes the attempt does.
    await linkOnly.accept().expect(200);
    needsOtp(await linkOnly.init());
    needsOtp(await linkOnly.sign());
    needsOtp(await linkOnly.reject());
    needsOtp(await linkOnly.selfie());
    needsOtp(await linkOnly.location());
    needsOtp(await linkOnly.failed());
    needsOtp(await linkOnly.retry());
    // A made-up session, or another party's, is no session.
    linkOnly.session = 'x'.repeat(43);
    needsOtp(await linkOnly.sign());
    const vikram = browser(refId, 2, tokens[2], VIKRAM.email);
    vikram.session = a.session;
    needsOtp(await vikram.sign());
    expect((await partyRow(t, refId, 1)).signatureSubmittedAt).toBeNull();

    // The code A used opens nothing more on another device.
    const reuse = await t.http
      .post(`/v1/verifyotp/${verified.userId}`)
      .set(Headers.signToken, tokens[1])
      .send({ otp: verified.code })
      .expect(200);
    expect(reuse.body).toMatchObject({ verify: false, message: RecipientMessages.otpAlreadyUsed });
    expect(reuse.body.session_token).toBeUndefined();

    // A second device verifies with its own OTP and gets its own session.
    t.clock.advance(Limits.otpResendSeconds + 1);
    const b = browser(refId, 1, tokens[1], ASHA.email);
    expect((await b.verify()).res.body.verify).toBe(true);
    expect(b.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.session).not.toBe(a.session);
    expect((await b.reference().expect(200)).body.request.otpVerificationRequired).toBe('false');

    // Session A signs.
    await a.init().then((res) => expect(res.status).toBe(200));
    const signed = await a.sign();
    expect([signed.status, signed.body.message]).toEqual([200, RecipientMessages.signed]);
    const sessions = await t.db.getRepository(SignerSessionEntity).findBy({ refId });
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s) => s.endedAt !== null)).toBe(true);
    // Both sessions are dead: the page no longer counts as verified, and a new OTP is refused.
    expect((await a.reference().expect(200)).body.request.auth).toBe(false);
    expect((await b.reference().expect(200)).body.request.auth).toBe(false);
    const again = await t.http.get(`/v1/sendotp/acme/${refId}/1`).set(Headers.signToken, tokens[1]).expect(400);
    expect(again.body.message).toBe(RecipientMessages.alreadySigned);
    await drain(t);
    expect((await partyRow(t, refId, 1)).status).toBe('completed');
    expect((await requestRow(t, refId)).status).toBe('in-progress');
  });

  it('a reload in the same browser needs no new OTP; inactivity and the maximum age end the session', async () => {
    const { refId, tokens } = await send([eSigner(ASHA)]);
    const a = browser(refId, 1, tokens[1], ASHA.email);
    await a.verify();
    await a.accept().expect(200);
    // A reload is the same browser: the session is still there, and kept alive by use.
    t.clock.advance(Limits.signerSessionIdleSeconds - 60);
    expect((await a.reference().expect(200)).body.request.auth).toBe(true);
    t.clock.advance(Limits.signerSessionIdleSeconds - 60);
    expect((await a.init()).status).toBe(200);
    // Unused for longer than the idle time: gone.
    t.clock.advance(Limits.signerSessionIdleSeconds + 1);
    expect((await a.reference().expect(200)).body.request.otpVerificationRequired).toBe('true');
    needsOtp(await a.sign());

    // Used every 20 minutes, a session still ends at its maximum age.
    t.clock.advance(Limits.otpResendSeconds + 1);
    await a.verify();
    const steps = Math.ceil(Limits.signerSessionMaxSeconds / 1200);
    for (let i = 0; i < steps; i++) {
      t.clock.advance(1200);
      await a.reference().expect(200);
    }
    needsOtp(await a.sign());
    expect((await partyRow(t, refId, 1)).signatureSubmittedAt).toBeNull();
  });

  it('rejecting needs the session and ends every session of the request', async () => {
    const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM)]);
    const a = browser(refId, 1, tokens[1], ASHA.email);
    const v = browser(refId, 2, tokens[2], VIKRAM.email);
    await a.verify();
    await v.verify();
    needsOtp(await browser(refId, 1, tokens[1], ASHA.email).reject());
    await a.reject().expect(200);
    const sessions = await t.db.getRepository(SignerSessionEntity).findBy({ refId });
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s) => s.endedAt !== null)).toBe(true);
    // The request is over: the other signer's action is refused for that reason (400), not for the session.
    const late = await v.sign();
    expect([late.status, late.body.message]).toEqual([400, RecipientMessages.requestRejected]);
  });

  it('a request without OTP needs no session', async () => {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      { recipients: [eSigner(ASHA)], otpRequired: false, checkOrder: false },
      [{ order: 1, pageNo: [1] }],
    );
    const a = browser(refId, 1, tokens[1], ASHA.email);
    expect((await a.reference().expect(200)).body.request).toMatchObject({
      auth: true,
      otpVerificationRequired: 'false',
    });
    await a.accept().expect(200);
    expect((await a.init()).status).toBe(200);
    expect((await a.sign()).status).toBe(200);
  });
});
