import { RecipientMessages } from '@esign/contract';
import { SIGNERS } from './support/requests';
import { sendForSigning } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

/**
 * GET /v1/reference answered before Express on its success path (reference-answer.ts): the same body and headers,
 * and everything that does not succeed answered by Express exactly as before.
 */
describe('the signing page’s first call, answered before Express', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(() => t.close());

  const twoSigners = () =>
    sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1]], otpRequired: false }, [
      { order: 1, pageNo: [1] },
      { order: 2, pageNo: [1] },
    ]);

  it('answers a valid link without Express, with the headers Express gave; anything refused goes through Express', async () => {
    const { refId, tokens } = await twoSigners();
    const express = t.app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
    const handle = jest.spyOn(express, 'handle');
    try {
      const path = `/v1/reference/acme/${refId}/1`;
      const ok = await t.http.get(path).set('x-sign-token', tokens[1]).expect(200);
      const byQuery = await t.http.get(`${path}/?token=${tokens[1]}`).expect(200);
      expect(handle).not.toHaveBeenCalled();
      expect(ok.body.request).toMatchObject({ refId, orderNo: 1, orgId: 'acme', name: SIGNERS[0].name });
      expect(typeof ok.body.request.uploadUrl).toBe('string');
      expect(byQuery.body.request.refId).toBe(refId);
      expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(ok.headers['cache-control']).toBe('no-store');
      expect(ok.headers['content-security-policy']).toContain("default-src 'none'");
      expect(ok.headers['x-frame-options']).toBe('DENY');
      expect(ok.headers['x-request-id']).toMatch(/^[\w-]+$/);
      expect(ok.headers.etag).toMatch(/^W\/"[0-9a-f]+-[\w+/]{27}"$/);
      expect(Number(ok.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(ok.body)));

      // Refused: no token, another party's token, a name bound to another party, the token twice: Express's 401.
      const refusals = [
        t.http.get(path),
        t.http.get(path).set('x-sign-token', tokens[2]),
        t.http.get(`/v1/reference/other/${refId}/1`).set('x-sign-token', tokens[1]),
        t.http.get(`${path}?token=${tokens[1]}&token=${tokens[1]}`),
        t.http.get(`${path}?orgId=other`).set('x-sign-token', tokens[1]),
      ];
      for (const refused of refusals) {
        const res = await refused.expect(401);
        expect(res.body).toMatchObject({ error: 'INVALID_LINK', message: RecipientMessages.invalidLink });
      }
      expect(handle).toHaveBeenCalledTimes(refusals.length);
      // Another method is Express's too.
      await t.http.head(path).set('x-sign-token', tokens[1]).expect(200);
      expect(handle).toHaveBeenCalledTimes(refusals.length + 1);
    } finally {
      handle.mockRestore();
    }
  });

  it('gives the same answer as Express for the same link', async () => {
    const { refId, tokens } = await twoSigners();
    const path = `/v1/reference/acme/${refId}/2`;
    const direct = await t.http.get(path).set('x-sign-token', tokens[2]).expect(200);
    // A HEAD goes through Express and its route (Express answers HEAD with the GET handler): same headers and length.
    const head = await t.http.head(path).set('x-sign-token', tokens[2]).expect(200);
    expect(head.headers['content-type']).toBe(direct.headers['content-type']);
    expect(head.headers['cache-control']).toBe(direct.headers['cache-control']);
    expect(head.headers['content-security-policy']).toBe(direct.headers['content-security-policy']);
    expect(head.headers['content-length']).toBe(direct.headers['content-length']);
    expect(head.headers.etag).toBe(direct.headers.etag);
  });
});
