import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { Messages } from '@esign/contract';
import { SIGNERS } from './support/requests';
import { sendForSigning } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * The console's lists answered before Express on their success path (requests/list-answer.ts): the same body and
 * headers as Express's route gives, compressed by the same middleware, and everything that does not succeed answered
 * by Express exactly as before.
 */
describe('the console lists, answered before Express', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const refIds: number[] = [];
  const page = `/api/requests?range=${encodeURIComponent('[0,9]')}&sort=${encodeURIComponent('["timestamp","DESC"]')}`;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'beta', 'bob', 'bob-password');
    key = await orgApiKey(t, 'acme');
    otherKey = await orgApiKey(t, 'beta');
    // Enough rows that a page of them is longer than the first flight (12 KB), so compression applies.
    for (let i = 0; i < 9; i++) {
      const { refId } = await sendForSigning(
        t,
        key,
        'acme',
        { recipients: [SIGNERS[0], SIGNERS[1], SIGNERS[2]], otpRequired: false },
        [1, 2, 3].map((order) => ({ order, pageNo: [1] })),
      );
      refIds.push(refId);
    }
    await sendForSigning(t, otherKey, 'beta', { recipients: [SIGNERS[0]], otpRequired: false }, [
      { order: 1, pageNo: [1] },
    ]);
  }, 120_000);
  afterAll(() => t.close());

  const expressSpy = () => {
    const express = t.app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
    return jest.spyOn(express, 'handle');
  };

  it('answers a page without Express, as Express answers it, and only with the caller’s own requests', async () => {
    const handle = expressSpy();
    let direct;
    try {
      direct = await t.http.get(page).set('apikey', key).set('Accept-Encoding', 'identity').expect(200);
      expect(handle).not.toHaveBeenCalled();
    } finally {
      handle.mockRestore();
    }
    expect(direct.body.map((r: { refId: number }) => r.refId).sort()).toEqual([...refIds].sort());
    expect(direct.headers['content-range']).toBe(`requests 0-8/${refIds.length}`);
    expect(direct.headers['x-total-count']).toBe(String(refIds.length));
    expect(direct.headers['access-control-expose-headers']).toBe('Content-Range, X-Total-Count');
    expect(direct.headers['cache-control']).toBe('no-store');
    expect(direct.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(direct.headers['x-frame-options']).toBe('DENY');
    expect(direct.headers['x-request-id']).toMatch(/^[\w-]+$/);
    expect(Number(direct.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(direct.body)));

    // HEAD goes through Express and the controller: the same headers, the same length and entity tag.
    const head = await t.http.head(page).set('apikey', key).set('Accept-Encoding', 'identity').expect(200);
    for (const name of ['content-range', 'x-total-count', 'cache-control', 'content-type', 'content-length', 'etag'])
      expect([name, head.headers[name]]).toEqual([name, direct.headers[name]]);

    // Another organisation's key sees its own one request.
    const other = await t.http.get(page).set('apikey', otherKey).expect(200);
    expect(other.headers['content-range']).toBe('requests 0-0/1');
    expect(other.body.every((r: { refId: number }) => !refIds.includes(r.refId))).toBe(true);
  });

  it('compresses a page longer than the first flight with the same middleware, and answers 304 to its entity tag', async () => {
    const handle = expressSpy();
    try {
      const plain = await t.http.get(page).set('apikey', key).set('Accept-Encoding', 'identity').expect(200);
      // The raw bytes (supertest would inflate them).
      const zipped = await new Promise<{ headers: IncomingHttpHeaders; status?: number; body: Buffer }>(
        (resolve, reject) => {
          get(`${t.env.PUBLIC_URL}${page}`, { headers: { apikey: key, 'Accept-Encoding': 'gzip' } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, status: res.statusCode, body: Buffer.concat(chunks) }));
          }).on('error', reject);
        },
      );
      expect(zipped.status).toBe(200);
      expect(Number(plain.headers['content-length'])).toBeGreaterThan(12 * 1024);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('Accept-Encoding');
      expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(plain.body);
      await t.http.get(page).set('apikey', key).set('If-None-Match', plain.headers.etag).expect(304);
      expect(handle).not.toHaveBeenCalled();
    } finally {
      handle.mockRestore();
    }
  });

  it('answers the drafts and a staff session key’s call the same way', async () => {
    const session = await signIn(t, 'alice', 'alice-password');
    const handle = expressSpy();
    try {
      const drafts = await t.http.get('/api/drafts').set('apikey', session).expect(200);
      expect(drafts.headers['content-range']).toMatch(/^drafts \d+-\d+\/\d+$/);
      const search = await t.http
        .get(`/api/requests?filter=${encodeURIComponent(JSON.stringify({ q: String(refIds[3]) }))}`)
        .set('apikey', session)
        .expect(200);
      expect(search.body.map((r: { refId: number }) => r.refId)).toEqual([refIds[3]]);
      expect(handle).not.toHaveBeenCalled();
    } finally {
      handle.mockRestore();
    }
  });

  it('leaves every refusal to Express, which answers it as before', async () => {
    const handle = expressSpy();
    try {
      const noKey = await t.http.get(page).expect(401);
      expect(noKey.body).toMatchObject({ message: Messages.noApiKey });
      await t.http.get(page).set('apikey', 'not-a-key').expect(401);
      const named = await t.http.get(`${page}&orgId=beta`).set('apikey', key).expect(403);
      expect(named.body).toMatchObject({ message: Messages.cannotConsume });
      await t.http.get(page).set('apikey', key).set('orgId', 'beta').expect(403);
      await t.http
        .get(`/api/requests?range=${encodeURIComponent('[9,0]')}`)
        .set('apikey', key)
        .expect(400);
      expect(handle).toHaveBeenCalledTimes(5);
    } finally {
      handle.mockRestore();
    }
  });
});
