import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { DraftListItem } from '@esign/contract';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { RequestEntity } from '../src/modules/requests/request.entity';
import { DocumentStorage } from '../src/modules/storage/document-storage';
import { S3DocumentStorage } from '../src/modules/storage/s3-document-storage';
import { readFixture } from './support/fixtures';
import { filesUnder, saveDefault, uploadOk } from './support/requests';
import { createOrgWithUser, signIn, startTestApp, type TestApp } from './support/test-app';

const BUCKET = 'esign-documents';
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const objectKey = (key: string) => `documents/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;

describe('documents in an S3-compatible bucket (S3_ENDPOINT, S3_BUCKET)', () => {
  let directory: string;
  let server: S3rver;
  let s3: S3Client;
  let t: TestApp;
  let key: string;

  /** GET of a document link as the console's new tab does it (no apikey), the body as bytes. */
  const fetchLink = (link: string) => {
    const url = new URL(link);
    return t.http
      .get(url.pathname + url.search)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'esign-s3rver-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    t = await startTestApp({
      JOBS_RUNNER: 'off',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await signIn(t, 'alice', 'alice-password');
  });

  afterAll(async () => {
    await t?.close();
    s3?.destroy();
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('uses the bucket, not $DATA_DIR/files, and passes the readiness check', async () => {
    const storage = t.app.get(DocumentStorage);
    expect(storage).toBeInstanceOf(S3DocumentStorage);
    await expect(storage.check()).resolves.toBeUndefined();
  });

  it('stores an uploaded PDF in the bucket and serves it back through the console link', async () => {
    const pdf = readFixture('pdfs', 'normal.pdf');
    const sha = createHash('sha256').update(pdf).digest('hex');
    const up = await uploadOk(t, key, 'acme');

    expect(filesUnder(join(t.config.dataDir, 'files'))).toEqual([]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect((listed.Contents ?? []).map((o) => o.Key)).toEqual([objectKey(sha)]);
    const stored = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: objectKey(sha) }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(pdf)).toBe(true);
    expect((await t.db.getRepository(RequestEntity).findOneByOrFail({ refId: up.refId })).fileKey).toBe(sha);

    // The console's Original document link, as the drafts list gives it (once saved).
    await saveDefault(t, key, 'acme', up);
    const drafts = await t.http.get('/v1/drafts/acme').set('apikey', key).expect(200);
    const draft = (drafts.body.data as DraftListItem[]).find((d) => d.refId === up.refId);
    const link = draft?.data[0].uploadUrl as string;
    expect(link).toMatch(/\/docs\/files\/acme\/\d+\/original\.pdf\?exp=/);
    const res = await fetchLink(link).expect(200).expect('Content-Type', 'application/pdf');
    expect(res.headers['content-length']).toBe(String(pdf.length));
    expect(Buffer.compare(res.body as Buffer, pdf)).toBe(0);
    // The upload's own file-url is the same document.
    const again = await fetchLink(up['file-url']).expect(200);
    expect(Buffer.compare(again.body as Buffer, pdf)).toBe(0);
  });

  it('answers ranges of a document in the bucket (206, a suffix, 416), as the signer app viewer asks for them', async () => {
    const pdf = readFixture('pdfs', 'normal.pdf');
    const up = await uploadOk(t, key, 'acme');
    const url = new URL(up['file-url']);
    const head = await t.http.head(url.pathname + url.search).expect(200);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.headers['content-length']).toBe(String(pdf.length));
    const part = await fetchLink(up['file-url']).set('Range', 'bytes=1000-1999').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${pdf.length}`);
    expect(Buffer.compare(part.body as Buffer, pdf.subarray(1000, 2000))).toBe(0);
    const suffix = await fetchLink(up['file-url']).set('Range', 'bytes=-100').expect(206);
    expect(Buffer.compare(suffix.body as Buffer, pdf.subarray(pdf.length - 100))).toBe(0);
    const beyond = await t.http
      .get(url.pathname + url.search)
      .set('Range', `bytes=${pdf.length}-`)
      .expect(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${pdf.length}`);
  });

  it('never serves a document whose object was changed in the bucket as if it were complete', async () => {
    const pdf = readFixture('pdfs', 'normal.pdf');
    const sha = createHash('sha256').update(pdf).digest('hex');
    const up = await uploadOk(t, key, 'acme');
    const tampered = Buffer.from(pdf);
    tampered[tampered.length - 10] ^= 0xff;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(sha), Body: tampered }));
    try {
      const outcome = await fetchLink(up['file-url']).then(
        (res) => ({ status: res.status, bytes: res.body as Buffer }),
        () => ({ status: 'cut off', bytes: null }),
      );
      // Failing before the first byte answers 500; after it, the connection is cut (never a full 200).
      expect(['cut off', 500]).toContain(outcome.status);
    } finally {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(sha), Body: pdf }));
    }
  });
});
