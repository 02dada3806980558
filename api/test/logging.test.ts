import { PassThrough } from 'node:stream';
import { SIGNERS } from './support/requests';
import { drain, latestOtp, sendForSigning, signAs, SIGNATURE_PNG } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

describe('structured logs', () => {
  let t: TestApp;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    });
    t = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: sink });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
  });
  afterAll(() => t.close());

  it('log every request as JSON with its request id, and never a password, key or link token', async () => {
    const key = await signIn(t, 'alice', 'alice-password');
    await t.http.get('/consumers/alice/key-auth').auth('alice', 'wrong-password-xyz').expect(401);
    await t.http
      .get('/api/organisations/acme?token=link-token-secret-123')
      .set('apikey', key)
      .set('x-request-id', 'req-42')
      .expect(200);
    await new Promise((r) => setImmediate(r));

    const request = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'req-42');
    expect(request).toMatchObject({
      req: { method: 'GET', url: '/api/organisations/acme?token=[redacted]' },
      res: { statusCode: 200 },
    });
    const all = JSON.stringify(lines);
    for (const secret of [
      key,
      'alice-password',
      'wrong-password-xyz',
      'link-token-secret-123',
      Buffer.from('alice:alice-password').toString('base64'),
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(lines.filter((l) => l.req).length).toBeGreaterThanOrEqual(3);
  });

  it('never logs a link token, an OTP or a signature through a whole signing', async () => {
    const key = await orgApiKey(t, 'acme');
    const { refId, tokens } = await sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0]], otpRequired: true }, [
      { order: 1, pageNo: [1] },
    ]);
    await signAs(t, { orgId: 'acme', refId, order: 1, token: tokens[1], email: SIGNERS[0].email, otp: true });
    await t.http.get(`/v1/reference/acme/${refId}/1?token=${tokens[1]}`).expect(200);
    await drain(t);
    await new Promise((r) => setImmediate(r));
    const all = JSON.stringify(lines);
    expect(all).toContain('/v1/esignature/acme/');
    for (const secret of [
      tokens[1],
      await latestOtp(t, SIGNERS[0].email),
      SIGNATURE_PNG.toString('base64').slice(0, 40),
    ])
      expect(all).not.toContain(secret);
  });
});
