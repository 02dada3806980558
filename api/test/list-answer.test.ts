import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Messages } from '@esign/contract';
import { LIST_PAGE_SECONDS, ListPageCache } from '../src/modules/requests/list-page-cache';
import { RequestListsService } from '../src/modules/requests/request-lists.service';
import { SIGNERS } from './support/requests';
import { sendForSigning, tokensOf } from './support/signing';
import { createOrgWithUser, engine, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

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

  /** The raw bytes of an answer (supertest would inflate them). */
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ headers: IncomingHttpHeaders; status?: number; body: Buffer }>((resolve, reject) => {
      get(`${t.env.PUBLIC_URL}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, status: res.statusCode, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

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
      const zipped = await rawGet(page, { apikey: key, 'Accept-Encoding': 'gzip' });
      expect(zipped.status).toBe(200);
      expect(Number(plain.headers['content-length'])).toBeGreaterThan(12 * 1024);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('Accept-Encoding');
      expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(plain.body);
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      // The middleware's negotiation: Brotli preferred when a browser offers it, q-values honoured, identity refused
      // leaves gzip, nothing acceptable sends the page as it is.
      for (const [accept, chosen] of [
        ['gzip, deflate, br, zstd', 'br'],
        ['gzip;q=1, br;q=0.5', 'gzip'],
        ['deflate', 'deflate'],
        ['identity;q=0, gzip', 'gzip'],
        ['br;q=0, gzip;q=0, deflate;q=0', undefined],
      ] as const) {
        const raw = await rawGet(page, { apikey: key, 'Accept-Encoding': accept });
        expect([accept, raw.headers['content-encoding']]).toEqual([accept, chosen]);
        // Express's middleware on one of its own routes (a long JSON answer) picks the same.
        const viaExpress = await rawGet('/v1/request_all/acme', { apikey: key, 'Accept-Encoding': accept });
        expect([accept, viaExpress.headers['content-encoding']]).toEqual([accept, chosen]);
        expect(raw.headers.vary).toBe('Accept-Encoding');
        const decoded =
          chosen === 'br'
            ? brotliDecompressSync(raw.body)
            : chosen === 'gzip'
              ? gunzipSync(raw.body)
              : chosen === 'deflate'
                ? inflateSync(raw.body)
                : raw.body;
        expect(JSON.parse(decoded.toString('utf8'))).toEqual(plain.body);
      }
      await t.http.get(page).set('apikey', key).set('If-None-Match', plain.headers.etag).expect(304);
      // Express answered the five /v1/request_all calls only.
      expect(handle).toHaveBeenCalledTimes(5);
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

  // list-page-cache.ts: SQLite keeps an answered page while nothing of the organisation changed; MySQL/MariaDB builds
  // every page (one version row per organisation would be a lock every signature of it queues on).
  it('answers a page again while nothing of the organisation changed, and shows any write to its requests or parties at once', async () => {
    const build = jest.spyOn(t.app.get(RequestListsService), 'listItems');
    const names = (body: { data: { name: string }[] }[]) => body.flatMap((r) => r.data.map((p) => p.name));
    const files = (body: { filename: string }[]) => body.map((r) => r.filename);
    const list = async (apikey = key) => (await t.http.get(page).set('apikey', apikey).expect(200)).body;
    const kept = engine === 'sqlite';
    try {
      // The pages the tests above were answered are now too old.
      t.clock.advance(LIST_PAGE_SECONDS);
      const first = await list();
      expect(await list()).toEqual(first);
      expect(build).toHaveBeenCalledTimes(kept ? 1 : 2);

      // Another organisation's write leaves this one's page; its own key still gets only its own rows.
      await t.db.query("UPDATE parties SET name = 'Beta Renamed' WHERE org_id = 'beta'");
      expect(await list()).toEqual(first);
      expect(names(await list(otherKey))).toEqual(['Beta Renamed']);
      expect(build).toHaveBeenCalledTimes(kept ? 2 : 4);

      // A party's row changed by plain SQL (as `manage` or another process would): the next page shows it.
      await t.db.query("UPDATE parties SET name = 'Renamed Signer' WHERE ref_id = ? AND party_order = 2", [refIds[4]]);
      expect(names(await list())).toContain('Renamed Signer');
      // A request's row.
      await t.db.query("UPDATE requests SET filename = 'renamed.pdf' WHERE ref_id = ?", [refIds[5]]);
      const renamed = await list();
      expect(files(renamed)).toContain('renamed.pdf');
      expect(build).toHaveBeenCalledTimes(kept ? 4 : 6);

      // The product's own write: the first signer opens the link, and the page shows when.
      const opened = (body: { refId: number; data: { order: number; opened_at: string | null }[] }[]) =>
        body.find((r) => r.refId === refIds[6])!.data.find((p) => p.order === 1)!.opened_at;
      expect(opened(renamed)).toBeNull();
      const tokens = await tokensOf(t, key, 'acme', refIds[6]);
      await t.http
        .post(`/v1/signer_details/acme/${refIds[6]}/1`)
        .set('x-sign-token', tokens[1])
        .send({ status: 'opened', userAgent: { OS: 'Android 14', Browser: 'Chrome 131' } })
        .expect(200);
      const seen = await list();
      expect(opened(seen)).toBe(t.clock.now().toISOString());
      const before = build.mock.calls.length;
      expect(await list()).toEqual(seen);
      expect(build).toHaveBeenCalledTimes(before + (kept ? 0 : 1));

      // The page is built again once it is LIST_PAGE_SECONDS old: its document links' expiry moves with the clock.
      const exp = (body: { data: { uploadUrl: string }[] }[]) =>
        Number(/exp=(\d+)/.exec(body[0].data[0].uploadUrl)![1]);
      t.clock.advance(LIST_PAGE_SECONDS - 1);
      expect(exp(await list())).toBe(exp(renamed) + (kept ? 0 : LIST_PAGE_SECONDS - 1));
      t.clock.advance(1);
      expect(exp(await list())).toBe(exp(renamed) + LIST_PAGE_SECONDS);
      expect(build).toHaveBeenCalledTimes(before + (kept ? 1 : 3));
      if (kept) {
        // A trigger lost (a SQLite migration that rebuilds the table drops them) is made again at the next start.
        await t.db.query('DROP TRIGGER list_versions_parties_update_v1');
        await t.app.get(ListPageCache).onModuleInit();
        await t.db.query("UPDATE parties SET name = 'Renamed Again' WHERE ref_id = ? AND party_order = 2", [refIds[4]]);
        expect(names(await list())).toContain('Renamed Again');
      }
    } finally {
      build.mockRestore();
      await t.db.query('UPDATE parties SET name = ? WHERE ref_id = ? AND party_order = 2', [
        SIGNERS[1].name,
        refIds[4],
      ]);
      await t.db.query("UPDATE requests SET filename = 'normal.pdf' WHERE ref_id = ?", [refIds[5]]);
    }
  });
});
