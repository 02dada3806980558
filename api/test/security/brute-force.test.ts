import { Limits, Messages, RecipientListMessages, RecipientMessages } from '@esign/contract';
import { randomInt } from 'node:crypto';
import { SIGNERS } from '../support/requests';
import { latestOtp, partyRow, sendForSigning } from '../support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from '../support/test-app';
import { UsersService } from '../../src/modules/auth/users.service';

/**
 * Guessing: OTPs (Limits.otpMaxVerifyAttempts wrong codes lock the code, the right one is then refused), sign-in
 * (LOGIN_MAX_FAILURES per username answers 429 with Retry-After even with the right password; a per-address limit
 * across usernames), and the secrets that must not be guessable: sign links, Ref IDs, session keys.
 */

/** Shannon entropy, in bits per character, of a text. */
function entropyPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / text.length) * Math.log2(n / text.length);
  return h;
}

/** The longest prefix any two of the values share. */
function longestSharedPrefix(values: string[]): number {
  const sorted = [...values].sort();
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) {
    let k = 0;
    while (k < sorted[i].length && sorted[i][k] === sorted[i - 1][k]) k++;
    longest = Math.max(longest, k);
  }
  return longest;
}

/** Random 256-bit base64url strings: ≥ 43 characters, all distinct, ~6 bits a character, no long shared prefix. */
function expectUnguessable(values: string[], minCount: number) {
  expect(values.length).toBeGreaterThanOrEqual(minCount);
  for (const v of values) expect(v).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  expect(new Set(values).size).toBe(values.length);
  for (const v of values) expect(Buffer.from(v, 'base64url').length).toBeGreaterThanOrEqual(32);
  // The 43rd character of 32 bytes carries 4 bits only: the first 42 carry 6 each.
  const h = entropyPerChar(values.map((v) => v.slice(0, 42)).join(''));
  expect(h).toBeGreaterThan(5.9);
  expect(h).toBeLessThanOrEqual(6);
  // n random strings over 64 symbols share about log64(n²/2) characters at most; allow a few more.
  const expected = Math.log(values.length ** 2 / 2) / Math.log(64);
  expect(longestSharedPrefix(values)).toBeLessThanOrEqual(Math.ceil(expected) + 2);
}

describe('brute force', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILURES: '4', LOGIN_FAILURE_WINDOW_SECONDS: '900' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  describe('OTP', () => {
    it(`locks the code after ${Limits.otpMaxVerifyAttempts} wrong guesses: the right code is then refused`, async () => {
      const asha = { ...SIGNERS[0], email: 'otp-guess@example.in' };
      const { refId, tokens } = await sendForSigning(t, key, 'acme', { recipients: [asha], otpRequired: true }, [
        { order: 1, pageNo: [1] },
      ]);
      const h = { 'x-sign-token': tokens[1] };
      const sent = await t.http.get(`/v1/sendotp/acme/${refId}/1`).set(h).expect(200);
      const code = await latestOtp(t, asha.email);
      const wrong = () => String((Number(code) + 1 + randomInt(0, 999_998)) % 1_000_000).padStart(6, '0');
      for (let i = 1; i <= Limits.otpMaxVerifyAttempts; i++) {
        const res = await t.http.post(`/v1/verifyotp/${sent.body.userId}`).set(h).send({ otp: wrong() }).expect(200);
        expect(res.body).toMatchObject({
          verify: false,
          message: Messages.otpInvalid,
          attempts_left: Limits.otpMaxVerifyAttempts - i,
        });
      }
      for (const otp of [wrong(), code]) {
        const res = await t.http.post(`/v1/verifyotp/${sent.body.userId}`).set(h).send({ otp });
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({
          error: 'TOO_MANY_ATTEMPTS',
          message: RecipientMessages.otpTooManyAttempts,
          status: { statusMessage: RecipientMessages.otpTooManyAttempts },
        });
      }
      const party = await partyRow(t, refId, 1);
      expect(party.otpVerifiedAt).toBeNull();
      const [row] = (await t.db.query('SELECT attempts, verified_at FROM otps WHERE id = ?', [sent.body.userId])) as {
        attempts: number;
        verified_at: unknown;
      }[];
      expect(row).toEqual({ attempts: Limits.otpMaxVerifyAttempts, verified_at: null });
      // Still locked out of signing.
      const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
      expect(ref.body.request).toMatchObject({ otpVerificationRequired: 'true', uploadUrl: null });
    });

    it(`allows at most ${Limits.otpMaxSendsPerHour} codes an hour, ${Limits.otpResendSeconds} s apart`, async () => {
      const who = { ...SIGNERS[0], email: 'otp-sends@example.in' };
      const { refId, tokens } = await sendForSigning(t, key, 'acme', { recipients: [who], otpRequired: true }, [
        { order: 1, pageNo: [1] },
      ]);
      const send = () => t.http.get(`/v1/sendotp/acme/${refId}/1`).set('x-sign-token', tokens[1]);
      await send().expect(200);
      const soon = await send().expect(429);
      expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
      for (let i = 2; i <= Limits.otpMaxSendsPerHour; i++) {
        t.clock.advance(Limits.otpResendSeconds + 1);
        await send().expect(200);
      }
      t.clock.advance(Limits.otpResendSeconds + 1);
      const many = await send().expect(429);
      expect(many.body.message).toBe(RecipientMessages.otpTooManySends);
      expect(Number(many.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe("the recipient's list (/list)", () => {
    it(`locks a list OTP after ${Limits.otpMaxVerifyAttempts} wrong guesses and bounds the codes per address and per network`, async () => {
      const who = { ...SIGNERS[0], email: 'list-guess@example.in' };
      await sendForSigning(t, key, 'acme', { recipients: [who], otpRequired: false }, [{ order: 1, pageNo: [1] }]);
      const started = await t.http.post('/v1/recipient/login').send({ identifier: who.email }).expect(200);
      const code = await latestOtp(t, who.email);
      const wrong = () => String((Number(code) + 1 + randomInt(0, 999_998)) % 1_000_000).padStart(6, '0');
      const verify = (otp: string) => t.http.post('/v1/recipient/verify').send({ id: started.body.id, otp });
      for (let i = 1; i <= Limits.otpMaxVerifyAttempts; i++) {
        const res = await verify(wrong()).expect(400);
        expect(res.body).toMatchObject({
          message: Messages.otpInvalid,
          attempts_left: Limits.otpMaxVerifyAttempts - i,
        });
      }
      for (const otp of [wrong(), code]) {
        const res = await verify(otp).expect(429);
        expect(res.body.message).toBe(RecipientListMessages.tooManyAttempts);
        expect(res.body.token).toBeUndefined();
      }
      // At most otpMaxSendsPerHour codes an hour for the address: at most 5 × 5 guesses an hour out of a million.
      for (let i = 1; i < Limits.otpMaxSendsPerHour; i++) {
        t.clock.advance(Limits.otpResendSeconds);
        await t.http.post('/v1/recipient/login').send({ identifier: who.email }).expect(200);
      }
      t.clock.advance(Limits.otpResendSeconds);
      const many = await t.http.post('/v1/recipient/login').send({ identifier: who.email }).expect(429);
      expect(many.body.message).toBe(RecipientListMessages.tooManySends);
      // And from one network address across addresses (a forged X-Forwarded-For is no other address).
      t.clock.advance(3601);
      for (let i = 0; i < Limits.recipientListOtpsPerIpPerHour; i++)
        await t.http
          .post('/v1/recipient/login')
          .set('x-forwarded-for', `203.0.113.${i}`)
          .send({ identifier: `spray${i}@example.in` })
          .expect(200);
      const sprayed = await t.http.post('/v1/recipient/login').send({ identifier: 'spray-x@example.in' }).expect(429);
      expect(sprayed.body.message).toBe(RecipientListMessages.tooManyFromNetwork);
      t.clock.advance(3601);
    });
  });

  describe('sign-in', () => {
    it('answers 429 with Retry-After after LOGIN_MAX_FAILURES, even with the right password, until the window ends', async () => {
      await createOrgWithUser(t, 'throttled', 'bruno', 'bruno-password');
      const max = t.config.loginThrottle.maxFailures;
      for (let i = 0; i < max; i++)
        await t.http.get('/consumers/bruno/key-auth').auth('bruno', `guess-${i}`).expect(401);
      for (const password of ['guess-x', 'bruno-password']) {
        const res = await t.http.get('/consumers/bruno/key-auth').auth('bruno', password);
        expect(res.status).toBe(429);
        expect(res.body.message).toBe(Messages.tooManyLoginFailures);
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(t.config.loginThrottle.windowSeconds);
        expect(res.body.data).toBeUndefined();
      }
      // Another username's case counts as the same user.
      await t.http.get('/consumers/BRUNO/key-auth').auth('BRUNO', 'bruno-password').expect(429);
      t.clock.advance(t.config.loginThrottle.windowSeconds + 1);
      await signIn(t, 'bruno', 'bruno-password');
    });

    it('limits one address across usernames', async () => {
      t.clock.advance(t.config.loginThrottle.windowSeconds + 1);
      await t.app.get(UsersService).create('acme', 'carol', 'carol-password');
      const { maxFailures, maxFailuresPerIp } = t.config.loginThrottle;
      // Spread over many usernames, each under its own limit, from one connection address.
      let failures = 0;
      for (let u = 0; failures < maxFailuresPerIp; u++) {
        for (let i = 0; i < maxFailures - 1 && failures < maxFailuresPerIp; i++, failures++)
          // A forged X-Forwarded-For does not make another address (no TRUSTED_PROXIES).
          await t.http
            .get(`/consumers/user${u}/key-auth`)
            .set('x-forwarded-for', `203.0.113.${failures}`)
            .auth(`user${u}`, 'nope')
            .expect(401);
      }
      const res = await t.http.get('/consumers/carol/key-auth').auth('carol', 'carol-password');
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      t.clock.advance(t.config.loginThrottle.windowSeconds + 1);
      await signIn(t, 'carol', 'carol-password');
    });
  });

  describe('nothing guessable', () => {
    const tokens: string[] = [];
    const refIds: number[] = [];

    beforeAll(async () => {
      const six = Array.from({ length: 6 }, (_v, i) => ({
        name: `Signer ${i + 1}`,
        email: `signer${i + 1}@example.in`,
        phoneNumber: `98111000${10 + i}`,
        observer: false,
        signature_type: 'e-Signature',
      }));
      for (let r = 0; r < 34; r++) {
        const sent = await sendForSigning(
          t,
          key,
          'acme',
          { recipients: six, otpRequired: false },
          six.map((_s, i) => ({ order: i + 1, pageNo: [1] })),
        );
        refIds.push(sent.refId);
        tokens.push(...Object.values(sent.tokens));
      }
    });

    it('sign links: ≥ 200 tokens of ≥ 256 bits, distinct, ~6 bits a character, no shared prefixes', () => {
      expectUnguessable(tokens, 200);
    });

    it('Ref IDs are not sequential', () => {
      expect(new Set(refIds).size).toBe(refIds.length);
      const steps = refIds.slice(1).map((id, i) => id - refIds[i]);
      // Consecutive requests' Ref IDs are neither +1 apart nor increasing.
      expect(steps.filter((d) => Math.abs(d) <= 1000).length).toBeLessThanOrEqual(1);
      expect(steps.filter((d) => d > 0).length).toBeLessThan(steps.length);
      for (const id of refIds) expect(String(id)).toMatch(/^\d{10}$/);
      // Spread over the 10-digit range, not clustered.
      const spread = Math.max(...refIds) - Math.min(...refIds);
      expect(spread).toBeGreaterThan(1e9);
    });

    it("the recipient list's tokens: 256 random bits, distinct", async () => {
      const listTokens: string[] = [];
      for (let i = 0; i < 48; i++) {
        t.clock.advance(3601);
        const started = await t.http.post('/v1/recipient/login').send({ identifier: 'signer1@example.in' }).expect(200);
        const otp = await latestOtp(t, 'signer1@example.in');
        listTokens.push((await t.http.post('/v1/recipient/verify').send({ id: started.body.id, otp })).body.token);
      }
      expectUnguessable(listTokens, 48);
    });

    it('API session keys and organisation keys: 256 random bits after their prefix', async () => {
      const sessions: string[] = [];
      for (let i = 0; i < 16; i++) sessions.push(await signIn(t, 'alice', 'alice-password'));
      const orgKeys: string[] = [];
      for (let i = 0; i < 64; i++) orgKeys.push(await orgApiKey(t, 'acme', `k${i}`));
      for (const k of sessions) expect(k).toMatch(/^ess_/);
      for (const k of orgKeys) expect(k).toMatch(/^eso_/);
      expectUnguessable(
        [...sessions, ...orgKeys].map((k) => k.slice(4)),
        80,
      );
    });
  });
});
