import { Limits, Messages, RecipientListMessages, RecipientMessages } from '@esign/contract';
import { OtpEntity } from '../src/modules/otp/otp.entity';
import { OTP_POLICIES, type OtpPurpose } from '../src/modules/otp/otp-policies';
import { OtpService, type OtpCheck } from '../src/modules/otp/otp.service';
import { SIGNERS } from './support/requests';
import { latestOtp, sendForSigning } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * The one OTP service (issue 20): issue, verify right and wrong, expiry by the injected Clock, attempts exhausted, the
 * resend throttle and hourly limit, and purposes kept apart (a signing code never logs a DSC agent in). The callers'
 * own answers are covered by recipients.test.ts, dsc.test.ts and recipient-list.test.ts.
 */
describe('the OTP service', () => {
  let t: TestApp;
  let otps: OtpService;
  let subjects = 0;
  /** A subject no other test has used. */
  const subject = () => `subject-${++subjects}@example.in`;

  beforeAll(async () => {
    t = await startTestApp();
    otps = t.app.get(OtpService);
  });
  afterAll(() => t.close());

  /** Sends a code to `to` for `purpose` (as the callers do: made outside the transaction, kept inside it). */
  async function issue(purpose: OtpPurpose, to: string, deliverable = true) {
    const otp = await otps.create(purpose, deliverable);
    await t.db.transaction((manager) => otps.save(manager, otp, to));
    return otp;
  }
  const guess = (purpose: OtpPurpose, id: string, code: string, to?: string): Promise<OtpCheck<string>> =>
    otps.verify(purpose, id, code, { subject: to, onVerified: async (_manager, row) => `verified ${row.id}` });
  const wrongFor = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const row = (id: string) => t.db.getRepository(OtpEntity).findOneByOrFail({ id });

  it('keeps only an HMAC of a 6-digit code, verifies the right code once and answers what onVerified made', async () => {
    const to = subject();
    const otp = await issue('signing', to);
    expect(otp.code).toMatch(/^\d{6}$/);
    const stored = await row(otp.id);
    expect(stored).toMatchObject({ purpose: 'signing', subject: to, attempts: 0, verifiedAt: null, partyId: null });
    expect(stored.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(otp.code);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(Limits.otpValiditySeconds * 1000);

    expect(await guess('signing', otp.id, otp.code, to)).toEqual({
      outcome: 'verified',
      id: otp.id,
      attempts: 1,
      attemptsLeft: Limits.otpMaxVerifyAttempts - 1,
      value: `verified ${otp.id}`,
    });
    expect((await row(otp.id)).verifiedAt?.getTime()).toBe(t.clock.now().getTime());
    // Used: the same right code opens nothing more.
    expect(await guess('signing', otp.id, otp.code, to)).toMatchObject({ outcome: 'used' });
  });

  it('counts wrong codes, then refuses even the right one once the attempts are used up', async () => {
    const to = subject();
    const otp = await issue('signing', to);
    for (let i = 1; i <= Limits.otpMaxVerifyAttempts; i++)
      expect(await guess('signing', otp.id, wrongFor(otp.code), to)).toEqual({
        outcome: 'wrong',
        id: otp.id,
        attempts: i,
        attemptsLeft: Limits.otpMaxVerifyAttempts - i,
      });
    expect(await guess('signing', otp.id, otp.code, to)).toEqual({ outcome: 'locked', id: otp.id });
    expect(await row(otp.id)).toMatchObject({ attempts: Limits.otpMaxVerifyAttempts, verifiedAt: null });
    expect(await otps.pending('signing', to)).toBeNull();
  });

  it('counts parallel guesses exactly, and verifies parallel right answers once', async () => {
    const to = subject();
    const otp = await issue('recipient-list', to);
    const wrong = await Promise.all(
      Array.from({ length: 8 }, () => guess('recipient-list', otp.id, wrongFor(otp.code))),
    );
    expect(wrong.filter((c) => c.outcome === 'wrong')).toHaveLength(Limits.otpMaxVerifyAttempts);
    expect(wrong.filter((c) => c.outcome === 'locked')).toHaveLength(8 - Limits.otpMaxVerifyAttempts);
    expect((await row(otp.id)).attempts).toBe(Limits.otpMaxVerifyAttempts);

    t.clock.advance(Limits.otpResendSeconds);
    const next = await issue('recipient-list', to);
    let made = 0;
    const right = await Promise.all(
      Array.from({ length: 3 }, () =>
        otps.verify('recipient-list', next.id, next.code, { onVerified: async () => ++made }),
      ),
    );
    expect(right.map((c) => c.outcome).sort()).toEqual(['used', 'used', 'verified']);
    expect(made).toBe(1);
  });

  it('answers used, not locked, to a right code that a parallel answer verified after it was read', async () => {
    const to = subject();
    const otp = await issue('recipient-list', to);
    const manager = t.db.manager;
    const read = manager.findOneBy.bind(manager);
    // The late answer reads the code, then the other answer verifies it, then the late one goes on with its stale row.
    const spy = jest.spyOn(manager, 'findOneBy').mockImplementationOnce(async (...args: Parameters<typeof read>) => {
      const stale = await read(...args);
      expect((await guess('recipient-list', otp.id, otp.code)).outcome).toBe('verified');
      return stale;
    });
    try {
      expect(await guess('recipient-list', otp.id, otp.code)).toMatchObject({ outcome: 'used', id: otp.id });
    } finally {
      spy.mockRestore();
    }
  });

  it('expires by the injected clock', async () => {
    const to = subject();
    const otp = await issue('dsc-login', to);
    t.clock.advance(Limits.otpValiditySeconds - 1);
    expect(await otps.pending('dsc-login', to)).toEqual({ id: otp.id, resendAfter: 0, expiresIn: 1 });
    t.clock.advance(1);
    expect(await guess('dsc-login', otp.id, otp.code)).toEqual({
      outcome: 'expired',
      id: otp.id,
      attempts: 0,
      attemptsLeft: Limits.otpMaxVerifyAttempts,
    });
    expect(await otps.pending('dsc-login', to)).toBeNull();
  });

  it('throttles resends per purpose and subject: 30 s apart, and at most 5 an hour where the purpose says so', async () => {
    const to = subject();
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({ allowed: true, resend: false });
    await issue('signing', to);
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({
      allowed: false,
      reason: 'wait',
      retryAfter: Limits.otpResendSeconds,
    });
    t.clock.advance(Limits.otpResendSeconds - 0.5);
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({ allowed: false, reason: 'wait', retryAfter: 1 });
    // Another purpose, or another subject, is not held up.
    expect(await otps.mayIssue(t.db.manager, 'dsc-login', to)).toEqual({ allowed: true, resend: false });
    expect(await otps.mayIssue(t.db.manager, 'signing', subject())).toEqual({ allowed: true, resend: false });
    t.clock.advance(0.5);
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({ allowed: true, resend: true });

    for (let i = 1; i < Limits.otpMaxSendsPerHour; i++) {
      await issue('signing', to);
      t.clock.advance(Limits.otpResendSeconds);
    }
    const sentFor = Limits.otpResendSeconds * Limits.otpMaxSendsPerHour;
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({
      allowed: false,
      reason: 'hourly',
      retryAfter: 3600 - sentFor,
    });
    t.clock.advance(3600 - sentFor);
    expect(await otps.mayIssue(t.db.manager, 'signing', to)).toEqual({ allowed: true, resend: true });

    // The DSC agent's login has no hourly limit.
    expect(OTP_POLICIES['dsc-login'].maxSendsPerHour).toBeNull();
    const agent = subject();
    for (let i = 0; i < Limits.otpMaxSendsPerHour + 2; i++) {
      expect((await otps.mayIssue(t.db.manager, 'dsc-login', agent)).allowed).toBe(true);
      await issue('dsc-login', agent);
      t.clock.advance(Limits.otpResendSeconds);
    }
  });

  it('replaces an older code by a newer one where the purpose says so (signing, /list), not for the DSC agent', async () => {
    for (const purpose of ['signing', 'recipient-list', 'dsc-login'] as const) {
      const to = subject();
      const older = await issue(purpose, to);
      t.clock.advance(Limits.otpResendSeconds);
      const newer = await issue(purpose, to);
      expect(await otps.pending(purpose, to)).toMatchObject({ id: newer.id });
      expect((await guess(purpose, older.id, older.code)).outcome).toBe(
        OTP_POLICIES[purpose].newestOnly ? 'expired' : 'verified',
      );
      expect((await guess(purpose, newer.id, newer.code)).outcome).toBe('verified');
    }
  });

  it('keeps purposes and subjects apart: a code is only ever verified for what and whom it was sent', async () => {
    const to = subject();
    const otp = await issue('signing', to);
    for (const purpose of ['dsc-login', 'recipient-list'] as const)
      expect(await guess(purpose, otp.id, otp.code)).toEqual({ outcome: 'unknown' });
    expect(await guess('signing', otp.id, otp.code, subject())).toEqual({ outcome: 'unknown' });
    expect(await otps.pending('dsc-login', to)).toBeNull();
    // Nothing was counted against it, and it still works for its own purpose.
    expect((await row(otp.id)).attempts).toBe(0);
    expect((await guess('signing', otp.id, otp.code, to)).outcome).toBe('verified');
    // The purposes' HMAC keys differ too: a stored hash says nothing about another purpose's code.
    expect(new Set(Object.values(OTP_POLICIES).map((p) => p.secret)).size).toBe(Object.keys(OTP_POLICIES).length);
  });

  it('matches no code when nothing was sent (an address without requests)', async () => {
    const to = subject();
    const otp = await issue('recipient-list', to, false);
    expect(await guess('recipient-list', otp.id, otp.code)).toMatchObject({ outcome: 'wrong', attempts: 1 });
  });

  it('removes a purpose’s codes older than a given time, and only that purpose’s', async () => {
    const to = subject();
    const list = await issue('recipient-list', to);
    const dsc = await issue('dsc-login', to);
    t.clock.advance(1);
    await otps.forget(t.db.manager, 'recipient-list', t.clock.now());
    expect(await t.db.getRepository(OtpEntity).findOneBy({ id: list.id })).toBeNull();
    expect(await t.db.getRepository(OtpEntity).findOneBy({ id: dsc.id })).not.toBeNull();
  });

  describe('through HTTP', () => {
    let key: string;
    beforeAll(async () => {
      await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
      key = await orgApiKey(t, 'acme');
    });

    it("a signer's OTP does not log a DSC agent or a /list reader in, nor their codes a signer", async () => {
      const asha = { ...SIGNERS[0], email: 'otp-purposes@example.in' };
      const { refId, tokens } = await sendForSigning(t, key, 'acme', { recipients: [asha], otpRequired: true }, [
        { order: 1, pageNo: [1] },
      ]);
      const h = { 'x-sign-token': tokens[1] };
      const sent = await t.http.get(`/v1/sendotp/acme/${refId}/1`).set(h).expect(200);
      const code = await latestOtp(t, asha.email);

      // The signing code's id and code, given to the agent's login and to /list.
      const dsc = await t.http.post('/v1/dsc/agent/verify').send({ loginId: sent.body.userId, otp: code }).expect(400);
      expect(dsc.body.message).toBe(Messages.otpInvalid);
      const list = await t.http.post('/v1/recipient/verify').send({ id: sent.body.userId, otp: code }).expect(400);
      expect(list.body.message).toBe(RecipientListMessages.loginUnknown);
      expect(await row(sent.body.userId)).toMatchObject({ attempts: 0, verifiedAt: null });

      // The agent's code (sent to the same address: Asha's request is live), given to the signer's verification.
      const login = await t.http.post('/v1/dsc/agent/login').send({ identifier: asha.email }).expect(200);
      const agentCode = await latestOtp(t, asha.email);
      expect(await row(login.body.loginId)).toMatchObject({ purpose: 'dsc-login', subject: asha.email, partyId: null });
      const signer = await t.http.post(`/v1/verifyotp/${login.body.loginId}`).set(h).send({ otp: agentCode });
      expect(signer.body.message).toBe(RecipientMessages.otpNotRequested);
      expect(await row(login.body.loginId)).toMatchObject({ attempts: 0, verifiedAt: null });

      // Each still works where it belongs.
      const verified = await t.http.post(`/v1/verifyotp/${sent.body.userId}`).set(h).send({ otp: code }).expect(200);
      expect(verified.body).toMatchObject({ verify: true, message: Messages.otpVerified });
      const agent = await t.http
        .post('/v1/dsc/agent/verify')
        .send({ loginId: login.body.loginId, otp: agentCode })
        .expect(200);
      expect(agent.body.agentToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });
  });
});
