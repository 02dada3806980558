import { PassThrough } from 'node:stream';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

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
});
