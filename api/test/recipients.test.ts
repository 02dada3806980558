/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { Limits, Messages, RecipientMessages } from '@esign/contract';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { LinksService } from '../src/modules/secrets/links.service';
import { readFixture } from './support/fixtures';
import { SIGNERS, type Recipient } from './support/requests';
import {
  drain,
  fixtureJpeg,
  latestOtp,
  makePng,
  partyRow,
  requestRow,
  sendForSigning,
  signAs,
  signedPdf,
  SIGNATURE_PNG,
  tokensOf,
  verifyPdf,
} from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const [ASHA, VIKRAM, MEERA] = SIGNERS;
const eSigner = (r: Recipient, type = 'e-Signature'): Recipient => ({ ...r, observer: false, signature_type: type });
const png = `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}`;

describe('the recipient side of /v1: links, OTP, accept, reject, sign once, fail and retry, location', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  const setOrg = (settings: Record<string, unknown>) =>
    t.http.put('/api/organisations/acme').set('apikey', key).send(settings).expect(200);

  /** A sent request on normal.pdf with the given recipients; parallel and without OTP unless told. */
  const send = (recipients: Recipient[], options: { otpRequired?: boolean; checkOrder?: boolean } = {}) =>
    sendForSigning(
      t,
      key,
      'acme',
      { recipients, otpRequired: options.otpRequired ?? false, checkOrder: options.checkOrder ?? false },
      recipients.map((_r, i) => ({ order: i + 1, pageNo: [1] })),
    );

  /** Calls of one party, with its token. */
  const as = (refId: number, order: number, token: string) => {
    // The link token, and the signer session once this party verified its OTP (as the signer app keeps it).
    const h: Record<string, string> = { 'x-sign-token': token };
    const base = `acme/${refId}/${order}`;
    const requestId = async () =>
      (await t.http.get(`/v1/reference/${base}`).set(h).expect(200)).body.request.requestId as string;
    return {
      reference: () => t.http.get(`/v1/reference/${base}`).set(h),
      sendOtp: () => t.http.get(`/v1/sendotp/${base}`).set(h),
      verifyOtp: (userId: string, otp: unknown) =>
        t.http
          .post(`/v1/verifyotp/${userId}`)
          .set(h)
          .send({ otp })
          .expect((res) => {
            if (res.body?.session_token) h['x-signer-session'] = res.body.session_token;
          }),
      details: (body: Record<string, unknown>) => t.http.post(`/v1/signer_details/${base}`).set(h).send(body),
      accept: () => t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }),
      location: (latitude: unknown, longitude: unknown) =>
        t.http.post('/v1/get_location').set(h).send({ latitude, longitude, orgId: 'acme' }),
      init: async (method: number) => t.http.get(`/v1/init/acme/${await requestId()}?method=${method}`).set(h),
      sign: async (body: Record<string, unknown> = { file: png }) =>
        t.http
          .post(`/v1/esignature/acme/${await requestId()}`)
          .set(h)
          .send(body),
      status: async () => t.http.get(`/v1/request/acme/${await requestId()}`).set(h),
      reject: (remark?: unknown) => t.http.post(`/v1/esign/reject/${base}`).set(h).send({ remark }),
      download: async () => t.http.get(`/v1/download/acme/${await requestId()}`).set(h),
      failed: async (body: Record<string, unknown>) =>
        t.http
          .post(`/v1/failed/acme/${await requestId()}`)
          .set(h)
          .send(body),
      retry: async () => t.http.get(`/v1/retry/acme/${await requestId()}`).set(h),
    };
  };
  const ok = async (pending: Promise<{ status: number; body: Record<string, unknown> }>) => {
    const res = await pending;
    expect([res.status, res.body]).toEqual([200, expect.anything()]);
    return res as { status: number; body: Record<string, never> };
  };
  const refusal = (res: { status: number; body: { error?: string; message?: string } }) => [
    res.status,
    res.body.error,
    res.body.message,
  ];
  const refused = (message: string) => [400, 'SIGNING_REFUSED', message];
  const invalidLink = [401, 'INVALID_LINK', RecipientMessages.invalidLink];

  describe('link tokens', () => {
    it('opens only its own party: wrong, other party, other organisation, old token after resend are all 401', async () => {
      const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM)]);
      expect((await as(refId, 1, tokens[1]).reference()).status).toBe(200);
      // ?token= works as well as the header.
      await t.http.get(`/v1/reference/acme/${refId}/1?token=${tokens[1]}`).expect(200);
      expect(refusal(await as(refId, 1, 'A'.repeat(43)).reference())).toEqual(invalidLink);
      expect(refusal(await as(refId, 1, tokens[2]).reference())).toEqual(invalidLink);
      expect(refusal(await t.http.get(`/v1/reference/globex/${refId}/1`).set('x-sign-token', tokens[1]))).toEqual(
        invalidLink,
      );
      expect(refusal(await t.http.get(`/v1/reference/acme/${refId + 1}/1`).set('x-sign-token', tokens[1]))).toEqual(
        invalidLink,
      );
      // Party 2's request id with party 1's token.
      const requestId2 = (await as(refId, 2, tokens[2]).reference()).body.request.requestId;
      expect(refusal(await t.http.get(`/v1/request/acme/${requestId2}`).set('x-sign-token', tokens[1]))).toEqual(
        invalidLink,
      );
      expect(
        refusal(
          await t.http
            .post('/v1/get_location')
            .set('x-sign-token', tokens[1])
            .send({ orgId: 'globex', latitude: 1, longitude: 1 }),
        ),
      ).toEqual(invalidLink);

      t.clock.advance(120);
      await t.http.get(`/v1/resend_invite/acme/${refId}/1`).set('apikey', key).expect(200);
      expect(refusal(await as(refId, 1, tokens[1]).reference())).toEqual(invalidLink);
      const fresh = (await tokensOf(t, key, 'acme', refId))[1];
      expect(fresh).not.toBe(tokens[1]);
      expect((await as(refId, 1, fresh).reference()).status).toBe(200);
    });

    it('answers the signing request with every field of the specification', async () => {
      await setOrg({ return_url: 'example.com/done', live_video: true, live_video_threshold: 0.7 });
      const { refId, tokens } = await send([eSigner(ASHA, 'Dual'), MEERA], { otpRequired: true });
      const res = await as(refId, 1, tokens[1]).reference().expect(200);
      expect(res.body.total_pages).toBe(2);
      expect(res.body.request).toMatchObject({
        name: ASHA.name,
        email: ASHA.email,
        phoneNumber: '+919876543210',
        uploadUrl: null,
        status: 'in-progress',
        otpRequired: true,
        auth: false,
        refId,
        refIds: [refId],
        orgId: 'acme',
        orderNo: 1,
        live_video: 'true',
        live_video_threshold: 0.7,
        face_capture: 'false',
        location_capture: 'false',
        otp_verification: 'true',
        otpVerificationRequired: 'true',
        signature_type: null,
        original_signature_type: 'dual',
        signing_methods: [0, 2],
        esignStatus: null,
        total_pages: 2,
        rectangle: '0,790,150,840',
        return_url: 'example.com/done',
      });
      for (const field of ['requestId', 'updated_timestamp', 'timestamp', 'esignedDate', 'aadhaar_face_capture'])
        expect(res.body.request).toHaveProperty(field);
      const video = await t.http.get('/v1/video_org_status/acme').set('x-sign-token', tokens[1]).expect(200);
      expect(video.body).toEqual({ code: 200, live_video: 'true', live_video_threshold: 0.7 });
      const location = await t.http.get('/v1/location_required/acme').set('x-sign-token', tokens[1]).expect(200);
      expect(location.body).toEqual({ code: 200, location_required: 'false' });
      await setOrg({ return_url: null, live_video: false });
    });
  });

  describe('OTP', () => {
    it('verifies a 6-digit code sent by SMS and e-mail; the document shows only afterwards', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)], { otpRequired: true });
      const me = as(refId, 1, tokens[1]);
      const sent = await me.sendOtp().expect(200);
      expect(sent.body).toMatchObject({ code: 200, message: Messages.otpSent, resend_after: 30, expires_in: 600 });
      const messages = await t.db
        .getRepository(OutboxMessageEntity)
        .find({ where: { refId, kind: 'otp' }, order: { id: 'ASC' } });
      expect(messages.map((m) => [m.channel, m.to])).toEqual([
        ['email', ASHA.email],
        ['sms', '+919876543210'],
      ]);
      const code = await latestOtp(t, ASHA.email);
      const wrong = code === '000000' ? '111111' : '000000';
      const bad = await me.verifyOtp(sent.body.userId, wrong).expect(200);
      expect(bad.body).toMatchObject({ verify: false, expired: false, message: Messages.otpInvalid, attempts_left: 4 });
      expect((await me.verifyOtp(sent.body.userId, 'abc')).status).toBe(400);
      const ok = await me.verifyOtp(sent.body.userId, code).expect(200);
      expect(ok.body).toMatchObject({ verify: true, expired: false, message: Messages.otpVerified });
      const ref = await me.reference().expect(200);
      expect(ref.body.request).toMatchObject({ otpVerificationRequired: 'false', auth: true });
      expect(ref.body.request.uploadUrl).toMatch(/\/docs\/files\/acme\/\d+\/original\.pdf\?exp=/);
      // Only a hash of the code is stored.
      const stored = JSON.stringify(await t.db.query('SELECT * FROM otps'));
      expect(stored).not.toContain(code);
    });

    it('throttles resends, expires after 10 minutes, replaces older codes and locks after 5 wrong attempts', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)], { otpRequired: true });
      const me = as(refId, 1, tokens[1]);
      const first = await me.sendOtp().expect(200);
      const firstCode = await latestOtp(t, ASHA.email);
      const again = await me.sendOtp().expect(429);
      expect(again.body.message).toBe('Please wait 30 seconds before requesting a new OTP.');
      expect(again.headers['retry-after']).toBe('30');

      t.clock.advance(Limits.otpValiditySeconds + 1);
      const late = await me.verifyOtp(first.body.userId, firstCode).expect(200);
      expect(late.body).toMatchObject({ verify: false, expired: true, message: Messages.otpExpired });

      const second = await me.sendOtp().expect(200);
      t.clock.advance(31);
      const third = await me.sendOtp().expect(200);
      const thirdCode = await latestOtp(t, ASHA.email);
      // The second code was replaced by the third.
      expect((await me.verifyOtp(second.body.userId, thirdCode)).body).toMatchObject({ verify: false, expired: true });
      const wrong = thirdCode === '000000' ? '111111' : '000000';
      for (let i = 0; i < Limits.otpMaxVerifyAttempts; i++) await me.verifyOtp(third.body.userId, wrong).expect(200);
      const locked = await me.verifyOtp(third.body.userId, thirdCode).expect(429);
      expect(locked.body.message).toBe(RecipientMessages.otpTooManyAttempts);
      expect((await partyRow(t, refId, 1)).otpVerifiedAt).toBeNull();

      // At most 5 an hour.
      for (let i = 0; i < 2; i++) {
        t.clock.advance(31);
        await me.sendOtp().expect(200);
      }
      t.clock.advance(31);
      const tooMany = await me.sendOtp().expect(429);
      expect(tooMany.body.message).toBe(RecipientMessages.otpTooManySends);
    });

    it('guesses made in parallel cannot exceed the attempt limit', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)], { otpRequired: true });
      const me = as(refId, 1, tokens[1]);
      const sent = await me.sendOtp().expect(200);
      const code = await latestOtp(t, ASHA.email);
      const guesses = Array.from({ length: 12 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
      const results = await Promise.all(guesses.map((g) => me.verifyOtp(sent.body.userId, g)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(Limits.otpMaxVerifyAttempts);
      expect(results.filter((r) => r.status === 429)).toHaveLength(12 - Limits.otpMaxVerifyAttempts);
    });
  });

  describe('the rules the server enforces', () => {
    it('accept before signing, OTP before signing, and only the methods the signature type allows', async () => {
      const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM, 'Aadhaar')], { otpRequired: true });
      const asha = as(refId, 1, tokens[1]);
      // Without this browser's verified OTP session, signing is refused before any other rule (401).
      const needsOtp = [401, 'OTP_REQUIRED', RecipientMessages.otpSessionRequired];
      expect(refusal(await asha.sign())).toEqual(needsOtp);
      await asha.details({ status: 'opened' }).expect(200);
      await asha.accept().expect(200);
      expect(refusal(await asha.sign())).toEqual(needsOtp);
      expect(refusal(await asha.init(2))).toEqual(needsOtp);

      const vikram = as(refId, 2, tokens[2]);
      const sent = await vikram.sendOtp().expect(200);
      await vikram.verifyOtp(sent.body.userId, await latestOtp(t, VIKRAM.email)).expect(200);
      expect(refusal(await vikram.sign())).toEqual(refused(RecipientMessages.acceptFirst));
      expect(refusal(await vikram.init(2))).toEqual(refused(RecipientMessages.acceptFirst));
      await vikram.accept().expect(200);
      expect(refusal(await vikram.init(2))).toEqual(refused(RecipientMessages.methodNotAllowed));
      expect(refusal(await vikram.sign())).toEqual(refused(RecipientMessages.methodNotAllowed));
      expect((await vikram.init(9)).status).toBe(400);
      // Aadhaar is the type's method: the page gets the ESP's address and the signed request to post there.
      const aadhaar = await vikram.init(0);
      expect(aadhaar.status).toBe(200);
      expect(aadhaar.body).toMatchObject({ method: 0, esp_url: expect.stringMatching(/\/esp-sandbox\/esign$/) });
      expect(aadhaar.body.fields.msg).toMatch(/^<Esign ver="2\.1"/);
      expect(refusal(await vikram.init(1))).toEqual(refused(RecipientMessages.methodNotAllowed));
      expect((await partyRow(t, refId, 2)).signatureSubmittedAt).toBeNull();
    });

    it('refuses a signer out of turn in a sequential request, then invites them once the signer before has signed', async () => {
      const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM)], { checkOrder: true });
      expect(Object.keys(tokens)).toEqual(['1']);
      // A link for the waiting signer, made as an invitation would (say it leaked, or a bug sent it early).
      const links = t.app.get(LinksService);
      const nonce = links.newNonce();
      const early = await links.partyToken(nonce);
      await t.db
        .getRepository(PartyEntity)
        .update({ refId, order: 2 }, { tokenNonce: nonce, tokenHash: links.tokenHash(early) });
      const vikram = as(refId, 2, early);
      expect(refusal(await vikram.accept())).toEqual(refused(RecipientMessages.notYourTurn));
      expect(refusal(await vikram.sign())).toEqual(refused(RecipientMessages.notYourTurn));
      expect(refusal(await vikram.reject('no'))).toEqual(refused(RecipientMessages.notYourTurn));

      await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: ASHA.email });
      expect(refusal(await vikram.accept())).toEqual(refused(RecipientMessages.notYourTurn));
      await drain(t);
      expect((await partyRow(t, refId, 2)).status).toBe('in-progress');
      const invited = (await tokensOf(t, key, 'acme', refId))[2];
      expect(invited).toBeDefined();
      await signAs(t, { orgId: 'acme', refId, order: 2, token: invited, email: VIKRAM.email });
      await drain(t);
      expect((await requestRow(t, refId)).status).toBe('completed');
    });

    it('signs once: parallel submits, a second tab and a retry after success give one signature', async () => {
      const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM)]);
      const asha = as(refId, 1, tokens[1]);
      await asha.accept().expect(200);
      await ok(asha.init(2));
      const requestId = (await asha.reference()).body.request.requestId;
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          t.http.post(`/v1/esignature/acme/${requestId}`).set('x-sign-token', tokens[1]).send({ file: png }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
      for (const r of results.filter((x) => x.status === 400))
        expect(r.body.message).toBe(RecipientMessages.alreadySigned);
      expect((await asha.status()).body).toMatchObject({ status: 'signing', signed: false });
      await drain(t);
      expect((await asha.status()).body).toMatchObject({ status: 'completed', signed: true, esignStatus: 'completed' });
      expect(refusal(await asha.sign())).toEqual(refused(RecipientMessages.alreadySigned));
      expect(refusal(await asha.reject('changed my mind'))).toEqual(refused(RecipientMessages.alreadySigned));

      const verified = await verifyPdf(t, await signedPdf(t, refId));
      expect(verified.ok).toBe(true);
      expect(verified.signatures.map((s) => s.signer)).toEqual([ASHA.name]);
    });

    it('rejects only with a remark; the request then accepts nothing and the others are told', async () => {
      await setOrg({ return_url: 'https://acme.example/after' });
      const { refId, tokens } = await send([eSigner(ASHA), eSigner(VIKRAM), MEERA]);
      const asha = as(refId, 1, tokens[1]);
      expect(refusal(await asha.reject())).toEqual([400, 'VALIDATION_FAILED', RecipientMessages.remarkRequired]);
      expect(refusal(await asha.reject('   '))).toEqual([400, 'VALIDATION_FAILED', RecipientMessages.remarkRequired]);
      expect((await requestRow(t, refId)).status).toBe('in-progress');
      const ok = await asha.reject('The amount in clause 4 is wrong.').expect(200);
      expect(ok.body).toEqual({
        code: 200,
        message: 'You have rejected the agreement',
        return_url: 'https://acme.example/after',
      });
      expect((await requestRow(t, refId)).status).toBe('rejected');
      expect(await partyRow(t, refId, 1)).toMatchObject({
        status: 'rejected',
        rejectRemark: 'The amount in clause 4 is wrong.',
      });
      expect((await partyRow(t, refId, 2)).status).toBe('cancelled');
      const told = await t.db
        .getRepository(OutboxMessageEntity)
        .find({ where: { refId, kind: 'rejected', channel: 'email' } });
      expect(told.map((m) => m.to)).toEqual([VIKRAM.email]);
      expect(told[0].text).toContain('The amount in clause 4 is wrong.');

      const vikram = as(refId, 2, tokens[2]);
      expect(refusal(await vikram.accept())).toEqual(refused(RecipientMessages.requestRejected));
      expect(refusal(await vikram.sign())).toEqual(refused(RecipientMessages.requestRejected));
      expect((await vikram.reference()).body.request).toMatchObject({ esignStatus: 'rejected', uploadUrl: null });
      expect((await asha.reference()).body.request.esignStatus).toBe('rejected');
      await setOrg({ return_url: null });
    });

    it("records a failure once per attempt, retries until 'Count Exceeded'", async () => {
      const { refId, tokens } = await send([eSigner(ASHA, 'Dual')]);
      const asha = as(refId, 1, tokens[1]);
      await asha.accept().expect(200);
      for (let attempt = 1; attempt <= Limits.maxSignAttempts; attempt++) {
        const failed = await asha.failed({
          send_email: attempt !== 1,
          errorCode: '944',
          errorMessage: 'User cancelled',
        });
        expect(failed.status).toBe(200);
        expect(failed.body).toMatchObject({
          errorCode: '944',
          errorMessage: 'User cancelled',
          refId,
          order: 1,
          attempts_left: Limits.maxSignAttempts - attempt,
        });
        // The failed page reloaded: not counted again.
        await ok(asha.failed({ send_email: false }));
        expect(await partyRow(t, refId, 1)).toMatchObject({ status: 'failed', failedAttempts: attempt });
        expect(refusal(await asha.sign())).toEqual(refused(RecipientMessages.retryFirst));
        const retry = await ok(asha.retry());
        if (attempt < Limits.maxSignAttempts) {
          expect(retry.body).toMatchObject({ message: 'success', order: 1, attempt: attempt + 1 });
          expect((await partyRow(t, refId, 1)).status).toBe('signing');
        } else {
          expect(retry.body).toMatchObject({ message: Messages.countExceeded, order: 1 });
        }
      }
      expect((await asha.reference()).body.request.esignStatus).toBe('signing');
      const mails = await t.db.getRepository(OutboxMessageEntity).find({ where: { refId, kind: 'failed' } });
      expect(mails).toHaveLength(Limits.maxSignAttempts - 1);
    });

    it('blocks signing from India when the organisation does not allow it, with its remark', async () => {
      await setOrg({ location_capture: true, allow_signing_from_india: false });
      const { refId, tokens } = await send([eSigner(ASHA)]);
      const asha = as(refId, 1, tokens[1]);
      await asha.accept().expect(200);
      expect(refusal(await asha.sign())).toEqual(refused(RecipientMessages.locationNeeded));
      expect((await asha.location('north', 2)).status).toBe(400);
      const delhi = await asha.location(28.6139, 77.209).expect(200);
      const remark =
        'eSign is not allowed from your current location (India). Please contact the sender of the document.';
      expect(delhi.body).toEqual({
        code: 200,
        allow_signing_from_india: false,
        remark,
        country: 'India',
        in_india: true,
      });
      expect((await asha.reference()).body.request.remark).toBe(remark);
      expect(refusal(await asha.sign())).toEqual(refused(remark));

      const london = await asha.location(51.5074, -0.1278).expect(200);
      expect(london.body).toMatchObject({ allow_signing_from_india: true, remark: null, country: 'United Kingdom' });
      await ok(asha.sign());
      await drain(t);
      expect((await partyRow(t, refId, 1)).geo).toMatchObject({ country: 'United Kingdom', allowed: true });
      await setOrg({ location_capture: false, allow_signing_from_india: true });
    });

    it('asks for the face capture when the organisation does; the selfie must be an image', async () => {
      await setOrg({ esignature_face_capture: true });
      const { refId, tokens } = await send([eSigner(ASHA)]);
      const asha = as(refId, 1, tokens[1]);
      await asha.accept().expect(200);
      expect(refusal(await asha.sign())).toEqual(refused(RecipientMessages.faceNeeded));
      const notImage = await asha.details({ status: 'signing', selfie: 'data:image/png;base64,aGVsbG8=' });
      expect(refusal(notImage)).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE', RecipientMessages.selfieInvalid]);
      const selfie = `data:image/png;base64,${readFixture('faces', 'astronaut.png').toString('base64')}`;
      await asha.details({ status: 'signing', selfie }).expect(200);
      expect((await partyRow(t, refId, 1)).selfieKey).toMatch(/^[0-9a-f]{64}$/);
      await ok(asha.sign());
      await setOrg({ esignature_face_capture: false });
    });

    it('takes the signer IP from the connection, not from the page', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)]);
      await as(refId, 1, tokens[1])
        .details({ status: 'opened', IP: '8.8.8.8', userAgent: { OS: 'iOS 18', Browser: 'Safari 18' } })
        .set('X-Forwarded-For', '9.9.9.9')
        .expect(200);
      const me = await partyRow(t, refId, 1);
      expect(me.signerIp).toMatch(/127\.0\.0\.1|::1/);
      expect(me.userAgent).toBe('Safari 18 on iOS 18');
      expect(me.status).toBe('opened');
    });
  });

  describe('the signature image', () => {
    it('takes PNG or JPEG by content, within 1 MB, and a typed name in normal or italic', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)]);
      const asha = as(refId, 1, tokens[1]);
      await asha.accept().expect(200);
      const requestId = (await asha.reference()).body.request.requestId;
      const post = () => t.http.post(`/v1/esignature/acme/${requestId}`).set('x-sign-token', tokens[1]);
      const invalidFormat = [415, 'UNSUPPORTED_MEDIA_TYPE', Messages.invalidSignatureImage];
      expect(refusal(await post().send({}))).toEqual([400, 'VALIDATION_FAILED', Messages.emptySignaturePad]);
      expect(refusal(await post().send({ file: 'data:image/png;base64,SGVsbG8gd29ybGQ=' }))).toEqual(invalidFormat);
      expect(refusal(await post().send({ file: 'not a data url' }))).toEqual(invalidFormat);
      const truncated = SIGNATURE_PNG.subarray(0, SIGNATURE_PNG.length - 40);
      expect(refusal(await post().send({ file: `data:image/png;base64,${truncated.toString('base64')}` }))).toEqual(
        invalidFormat,
      );
      expect(
        refusal(
          await post()
            .field('kind', 'uploaded')
            .attach('file', readFixture('pdfs', 'normal.pdf'), { filename: 'sign.png', contentType: 'image/png' }),
        ),
      ).toEqual(invalidFormat);
      expect(
        refusal(
          await post()
            .field('kind', 'uploaded')
            .attach('file', SIGNATURE_PNG, { filename: 'my.sign.png', contentType: 'image/png' }),
        ),
      ).toEqual(invalidFormat);
      const noise = makePng(600, 600, (x, y) => [(x * 7919 + y * 104729) % 251, (x * y) % 253, (x ^ y) % 255, 255]);
      expect(noise.length).toBeGreaterThan(Limits.signatureImageMaxBytes);
      expect(refusal(await post().attach('file', noise, { filename: 'big.png', contentType: 'image/png' }))).toEqual([
        413,
        'PAYLOAD_TOO_LARGE',
        RecipientMessages.signatureTooLarge,
      ]);
      expect(refusal(await post().send({ kind: 'typed', style: 'bold' }))).toEqual([
        400,
        'VALIDATION_FAILED',
        RecipientMessages.signatureStyleInvalid,
      ]);
      expect((await partyRow(t, refId, 1)).signatureSubmittedAt).toBeNull();
      await post().send({ kind: 'typed', style: 'italic' }).expect(200);
      expect(await partyRow(t, refId, 1)).toMatchObject({
        signatureKind: 'typed',
        signatureStyle: 'italic',
        signatureKey: null,
      });
    });

    it('signs with an uploaded JPEG', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)]);
      await signAs(t, {
        orgId: 'acme',
        refId,
        order: 1,
        token: tokens[1],
        email: ASHA.email,
        signature: { kind: 'uploaded', image: fixtureJpeg(), filename: 'signature.JPG', contentType: 'image/jpeg' },
      });
      expect((await partyRow(t, refId, 1)).signatureKind).toBe('uploaded');
      await drain(t);
      expect((await verifyPdf(t, await signedPdf(t, refId))).problems).toEqual([]);
      const res = await as(refId, 1, tokens[1]).download();
      expect(res.status).toBe(200);
      expect(res.body.download_url).toMatch(/\/docs\/files\/acme\/\d+\/signed\.pdf\?exp=/);
    });
  });
  // Last: it moves the clock a month on, and certificates issued after that are not yet valid for pdfsig's real clock.
  describe('after expiry', () => {
    it('refuses everything once the request has expired', async () => {
      const { refId, tokens } = await send([eSigner(ASHA)]);
      t.clock.advance(31 * 86_400);
      await drain(t);
      const asha = as(refId, 1, tokens[1]);
      expect(refusal(await asha.accept())).toEqual(refused(RecipientMessages.requestExpired));
      expect(refusal(await asha.sign())).toEqual(refused(RecipientMessages.requestExpired));
      expect(refusal(await asha.sendOtp())).toEqual(refused(RecipientMessages.otpNotNeeded));
      expect((await asha.reference()).body.request.esignStatus).toBe('expired');
    });
  });
});
