import { ErrorStatus, RecipientMessages, RequestMessages } from '@esign/contract';
import { createHash } from 'node:crypto';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as documentStorage from '../src/modules/storage/document-storage';
import { readFixture } from './support/fixtures';
import { SIGNERS, uploadOk } from './support/requests';
import { sendForSigning } from './support/signing';
import { createOrgWithUser, orgApiKey, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 23: document links answer HTTP Range requests, so the signer app's pdf.js draws the first page from the bytes
 * it needs instead of the whole file. Every check of the link (its HMAC, expiry, organisation) comes first.
 */
describe('document links answer HTTP Range requests', () => {
  let t: TestApp;
  let key: string;
  let link: URL;
  let pdf: Buffer;

  /** A GET (or HEAD) of a link's path, the body as bytes. */
  const get = (path: string, range?: string, method: 'get' | 'head' = 'get') => {
    let req = t.http[method](path);
    if (range !== undefined) req = req.set('Range', range);
    return method === 'head'
      ? req
      : req.buffer(true).parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        });
  };
  const path = (url: URL) => url.pathname + url.search;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await signIn(t, 'alice', 'alice-password');
    pdf = readFixture('pdfs', 'normal.pdf');
    link = new URL((await uploadOk(t, key, 'acme'))['file-url']);
  });
  afterAll(() => t.close());

  it('says it takes ranges on the whole document (200, its length, Accept-Ranges: bytes)', async () => {
    const res = await get(path(link)).expect(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe(String(pdf.length));
    expect(res.headers['content-range']).toBeUndefined();
    expect(Buffer.compare(res.body as Buffer, pdf)).toBe(0);
  });

  it('answers HEAD with the headers and the length pdf.js reads, and no body', async () => {
    const res = await get(path(link), undefined, 'head').expect(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe(String(pdf.length));
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.text ?? '').toBe('');
  });

  it('answers a range with 206, Content-Range and exactly those bytes, and keeps the security headers', async () => {
    const res = await get(path(link), 'bytes=100-1123').expect(206);
    expect(res.headers['content-range']).toBe(`bytes 100-1123/${pdf.length}`);
    expect(res.headers['content-length']).toBe('1024');
    expect(Buffer.compare(res.body as Buffer, pdf.subarray(100, 1124))).toBe(0);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toMatch(/Content-Range/);
  });

  it('answers an open range, a range past the end (cut to the end) and a suffix range', async () => {
    const open = await get(path(link), `bytes=${pdf.length - 300}-`).expect(206);
    expect(open.headers['content-range']).toBe(`bytes ${pdf.length - 300}-${pdf.length - 1}/${pdf.length}`);
    expect(Buffer.compare(open.body as Buffer, pdf.subarray(pdf.length - 300))).toBe(0);

    const past = await get(path(link), `bytes=10-${pdf.length + 5000}`).expect(206);
    expect(past.headers['content-range']).toBe(`bytes 10-${pdf.length - 1}/${pdf.length}`);
    expect(Buffer.compare(past.body as Buffer, pdf.subarray(10))).toBe(0);

    const suffix = await get(path(link), 'bytes=-512').expect(206);
    expect(suffix.headers['content-range']).toBe(`bytes ${pdf.length - 512}-${pdf.length - 1}/${pdf.length}`);
    expect(suffix.headers['content-length']).toBe('512');
    expect(Buffer.compare(suffix.body as Buffer, pdf.subarray(pdf.length - 512))).toBe(0);

    const whole = await get(path(link), `bytes=-${pdf.length * 2}`).expect(206);
    expect(Buffer.compare(whole.body as Buffer, pdf)).toBe(0);
  });

  it('answers 416 with the document length for a range beyond the end, in the error shape', async () => {
    for (const range of [`bytes=${pdf.length}-`, `bytes=${pdf.length + 10}-${pdf.length + 20}`, 'bytes=-0']) {
      const res = await t.http.get(path(link)).set('Range', range).expect(416);
      expect(res.headers['content-range']).toBe(`bytes */${pdf.length}`);
      expect(res.body).toMatchObject({
        code: ErrorStatus.RANGE_NOT_SATISFIABLE,
        error: 'RANGE_NOT_SATISFIABLE',
        message: RequestMessages.rangeNotSatisfiable,
      });
    }
  });

  it('answers the whole document to a range it does not serve (several ranges, another unit, nonsense)', async () => {
    for (const range of ['bytes=0-10,20-30', 'pages=1-2', 'bytes=20-10', 'bytes=x-y']) {
      const res = await get(path(link), range).expect(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(Buffer.compare(res.body as Buffer, pdf)).toBe(0);
    }
  });

  it('still refuses a link without permission when it asks for a range: no byte, no Content-Range', async () => {
    const forged = new URL(link);
    forged.searchParams.set('sig', 'A'.repeat(43));
    const otherOrg = new URL(link);
    otherOrg.pathname = otherOrg.pathname.replace('/acme/', '/globex/');
    const otherKind = new URL(link);
    otherKind.pathname = otherKind.pathname.replace('original.pdf', 'signed.pdf');
    for (const url of [forged, otherOrg, otherKind]) {
      const res = await t.http.get(path(url)).set('Range', 'bytes=0-99').expect(403);
      expect(res.headers['content-range']).toBeUndefined();
      expect(res.body).toMatchObject({ error: 'FORBIDDEN' });
    }
    const unknown = new URL(link);
    unknown.pathname = unknown.pathname.replace('original.pdf', 'other.pdf');
    await t.http.get(path(unknown)).set('Range', 'bytes=0-99').expect(404);

    // An expired link, with a range, also unsatisfiable: the link is refused first.
    t.clock.advance(13 * 3600);
    try {
      const res = await t.http.get(path(link)).set('Range', 'bytes=0-99').expect(403);
      expect(res.headers['content-range']).toBeUndefined();
      await t.http.get(path(link)).set('Range', `bytes=${pdf.length}-`).expect(403);
    } finally {
      t.clock.advance(-13 * 3600);
    }
  });

  it('reads and checks the whole file for its first range only, and again once the file changed on disk', async () => {
    const sha = createHash('sha256').update(pdf).digest('hex');
    const file = join(t.config.dataDir, 'files', sha.slice(0, 2), sha.slice(2, 4), sha);
    // Every whole read of a stored document is checked through verifiedStream: counting its calls counts them.
    const wholeReads = jest.spyOn(documentStorage, 'verifiedStream');
    try {
      await get(path(link), 'bytes=0-99').expect(206);
      wholeReads.mockClear();
      for (const range of ['bytes=100-1123', `bytes=${pdf.length - 300}-`, 'bytes=-512']) {
        const res = await get(path(link), range).expect(206);
        expect((res.body as Buffer).length).toBe(Number(res.headers['content-length']));
      }
      const again = await get(path(link), 'bytes=100-1123').expect(206);
      expect(Buffer.compare(again.body as Buffer, pdf.subarray(100, 1124))).toBe(0);
      expect(wholeReads).not.toHaveBeenCalled();

      // Changed on disk (same length, even the same modification time): checked whole again, and refused.
      const before = statSync(file);
      const tampered = Buffer.from(pdf);
      tampered[tampered.length - 10] ^= 0xff;
      writeFileSync(file, tampered);
      utimesSync(file, before.atime, before.mtime);
      try {
        const outcome = await get(path(link), 'bytes=0-99').then(
          (res) => ({ status: res.status }),
          () => ({ status: 'cut off' }),
        );
        expect(['cut off', 500]).toContain(outcome.status);
        expect(wholeReads).toHaveBeenCalledTimes(1);
      } finally {
        writeFileSync(file, pdf);
      }
      // Put back: checked whole once, then its ranges are read alone again.
      wholeReads.mockClear();
      await get(path(link), 'bytes=0-99').expect(206);
      await get(path(link), 'bytes=100-199').expect(206);
      expect(wholeReads).toHaveBeenCalledTimes(1);
    } finally {
      wholeReads.mockRestore();
    }
  });

  it('never answers a range of a document whose file no longer matches its hash as if it were complete', async () => {
    const sha = createHash('sha256').update(pdf).digest('hex');
    const file = join(t.config.dataDir, 'files', sha.slice(0, 2), sha.slice(2, 4), sha);
    const tampered = Buffer.from(pdf);
    tampered[tampered.length - 10] ^= 0xff;
    writeFileSync(file, tampered);
    try {
      // The damage is at the end, outside the range asked for: the range is still refused.
      const outcome = await get(path(link), 'bytes=0-99').then(
        (res) => ({ status: res.status }),
        () => ({ status: 'cut off' }),
      );
      expect(['cut off', 500]).toContain(outcome.status);
    } finally {
      writeFileSync(file, pdf);
    }
  });
});

/**
 * Issue 23: GET /v1/document/{orgId}/{refId}/{orderNo} answers the document the reference's uploadUrl shows, by the
 * link token, so the signing page opens it beside the reference call. Its permission is uploadUrl's, no more.
 */
describe("the signer's own document call answers ranges with uploadUrl's permission", () => {
  let t: TestApp;
  let key: string;
  let pdf: Buffer;

  const get = (path: string, headers: Record<string, string>, range?: string) => {
    let req = t.http.get(path).set(headers);
    if (range !== undefined) req = req.set('Range', range);
    return req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  };
  const json = (res: { body: unknown }) => JSON.parse((res.body as Buffer).toString('utf8')) as Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    pdf = readFixture('pdfs', 'normal.pdf');
  });
  afterAll(() => t.close());

  /** A request of normal.pdf for two signers without OTP, each boxed on page 1. */
  const twoSigners = () =>
    sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1]], otpRequired: false }, [
      { order: 1, pageNo: [1] },
      { order: 2, pageNo: [1] },
    ]);

  it('answers the very document of uploadUrl, whole and by ranges, to the link token', async () => {
    const { refId, tokens } = await twoSigners();
    const h = { 'x-sign-token': tokens[1] };
    const path = `/v1/document/acme/${refId}/1`;
    const whole = await get(path, h).expect(200);
    expect(Buffer.compare(whole.body as Buffer, pdf)).toBe(0);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-type']).toBe('application/pdf');
    expect(whole.headers['cache-control']).toBe('private, no-store');
    // No cross-origin reader: the token is a header only the signing page sends.
    expect(whole.headers['access-control-allow-origin']).toBeUndefined();
    const ref = await t.http.get(`/v1/reference/acme/${refId}/1`).set(h).expect(200);
    const link = new URL(ref.body.request.uploadUrl as string);
    const shown = await get(link.pathname + link.search, {}).expect(200);
    expect(Buffer.compare(shown.body as Buffer, whole.body as Buffer)).toBe(0);

    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      [`bytes=${pdf.length - 300}-`, pdf.length - 300, pdf.length - 1],
      ['bytes=-512', pdf.length - 512, pdf.length - 1],
    ] as const) {
      const res = await get(path, h, range).expect(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${pdf.length}`);
      expect(Buffer.compare(res.body as Buffer, pdf.subarray(start, end + 1))).toBe(0);
    }
    const beyond = await get(path, h, `bytes=${pdf.length}-`).expect(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${pdf.length}`);
  });

  it("refuses without the token, with another party's token, before the OTP and once the request is closed", async () => {
    const { refId, tokens } = await twoSigners();
    const path = `/v1/document/acme/${refId}/1`;
    const none = await get(path, {}, 'bytes=0-99').expect(401);
    expect(none.headers['content-range']).toBeUndefined();
    expect(json(none)).toMatchObject({ error: 'INVALID_LINK' });
    const other = await get(path, { 'x-sign-token': tokens[2] }, 'bytes=0-99');
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.status).toBeLessThan(500);
    expect(other.headers['content-range']).toBeUndefined();

    // Closed: rejected by its first signer, the document is no longer shown to anyone by this call.
    await t.http
      .post(`/v1/esign/reject/acme/${refId}/1`)
      .set({ 'x-sign-token': tokens[1] })
      .send({ remark: 'Not mine' })
      .expect(200);
    const closed = await get(path, { 'x-sign-token': tokens[1] }, 'bytes=0-99');
    expect(closed.status).toBe(400);
    expect(json(closed)).toMatchObject({ message: RecipientMessages.requestRejected });

    // An OTP request: nothing before this browser has verified the OTP (no signer session), as uploadUrl.
    const otp = await sendForSigning(t, key, 'acme', { recipients: [SIGNERS[0]], otpRequired: true }, [
      { order: 1, pageNo: [1] },
    ]);
    const pending = await get(`/v1/document/acme/${otp.refId}/1`, { 'x-sign-token': otp.tokens[1] }, 'bytes=0-99');
    expect(pending.status).toBe(401);
    expect(json(pending)).toMatchObject({ error: 'OTP_REQUIRED', message: RecipientMessages.otpSessionRequired });
    const ref = await t.http.get(`/v1/reference/acme/${otp.refId}/1`).set({ 'x-sign-token': otp.tokens[1] });
    expect(ref.body.request.uploadUrl).toBeNull();
  });
});
