import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import S3rver from 's3rver';
import { AppError } from '../../common/app-error';
import * as documentStorage from './document-storage';
import { S3DocumentStorage, type S3StorageOptions } from './s3-document-storage';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const objectKey = (key: string) => `documents/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

async function readChunks(stream: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return chunks;
}
const readAll = async (stream: Readable) => Buffer.concat(await readChunks(stream));

describe('S3DocumentStorage (against s3rver)', () => {
  let directory: string;
  let server: S3rver;
  let endpoint: string;
  let raw: S3Client;
  let bucket: string;
  let storage: S3DocumentStorage;
  let buckets = 0;

  const options = (over: Partial<S3StorageOptions> = {}): S3StorageOptions => ({
    endpoint,
    bucket,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    ...over,
  });
  const objects = async () =>
    ((await raw.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'esign-s3rver-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    raw = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  });

  afterAll(async () => {
    raw.destroy();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  // A bucket of its own for every test, so that counting objects counts only the test's own.
  beforeEach(async () => {
    bucket = `docs-${++buckets}`;
    await raw.send(new CreateBucketCommand({ Bucket: bucket }));
    storage = new S3DocumentStorage(options());
  });

  it('stores bytes under their SHA-256 at documents/ab/cd/<key> and gives them back', async () => {
    const bytes = Buffer.from('%PDF-1.7 a document');
    const { key, size } = await storage.put(bytes);
    expect(key).toBe(sha256(bytes));
    expect(size).toBe(bytes.length);
    expect(await objects()).toEqual([objectKey(key)]);
    const stored = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(bytes)).toBe(true);
    expect(stored.ContentType).toBe('application/octet-stream');
    expect(await storage.exists(key)).toBe(true);
    expect((await storage.get(key)).equals(bytes)).toBe(true);
  });

  it('stores a document given as pieces as the bytes they make, checked by S3 against the hash given', async () => {
    const pieces = [Buffer.from('%PDF-1.7 the file\n'), Buffer.from('1 0 obj\n<<>>\nendobj\n')];
    const whole = Buffer.concat(pieces);
    expect(await storage.put(pieces, sha256(whole))).toEqual({ key: sha256(whole), size: whole.length });
    expect((await storage.get(sha256(whole))).equals(whole)).toBe(true);
    const other = [Buffer.from('%PDF-1.7 another\n')];
    expect((await storage.put(other)).key).toBe(sha256(other[0]));
  });

  it('stores the same bytes once, however often and however concurrently they are put', async () => {
    const bytes = Buffer.from('same content');
    const { key } = await storage.put(bytes);
    await storage.put(bytes);
    const results = await Promise.all(Array.from({ length: 10 }, () => storage.put(bytes)));
    expect(results.every((r) => r.key === key && r.size === bytes.length)).toBe(true);
    expect(await objects()).toEqual([objectKey(key)]);
    expect((await storage.get(key)).equals(bytes)).toBe(true);
  });

  it('refuses to hand out bytes that no longer match their key, by get and by stream', async () => {
    const { key } = await storage.put(Buffer.from('original'));
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: Buffer.from('tampered') }));
    await expect(storage.get(key)).rejects.toThrow(`stored document ${key} does not match its hash`);
    const stream = await storage.stream(key);
    await expect(readAll(stream)).rejects.toThrow(/does not match its hash/);
    expect(stream.destroyed).toBe(true);
  });

  it('answers NOT_FOUND for unknown keys, by get and before any byte by stream', async () => {
    await expect(storage.get('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(storage.stream('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await storage.exists('0'.repeat(64))).toBe(false);
  });

  it('answers NOT_FOUND for malformed keys without asking the store', async () => {
    // No store at all behind this endpoint: any request would fail with a connection error, not NOT_FOUND.
    const offline = new S3DocumentStorage(options({ endpoint: 'http://127.0.0.1:9' }));
    for (const key of ['../../etc/passwd', 'A'.repeat(64), `${'0'.repeat(64)}/x`, '']) {
      await expect(offline.get(key)).rejects.toBeInstanceOf(AppError);
      await expect(offline.get(key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(offline.stream(key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await offline.exists(key)).toBe(false);
    }
  });

  it('tells which keys exist, and throws (rather than answering false) when the store itself fails', async () => {
    const { key } = await storage.put(Buffer.from('present'));
    expect(await storage.exists(key)).toBe(true);
    expect(await storage.exists(sha256(Buffer.from('absent')))).toBe(false);
    const offline = new S3DocumentStorage(options({ endpoint: 'http://127.0.0.1:9' }));
    await expect(offline.exists(key)).rejects.toThrow();
  });

  it('passes the readiness check on its bucket, and fails naming the bucket and endpoint otherwise', async () => {
    await expect(storage.check()).resolves.toBeUndefined();
    const missing = new S3DocumentStorage(options({ bucket: 'no-such-bucket' }));
    const err = (await missing.check().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain('no-such-bucket');
    expect(err.message).toContain(endpoint);
    expect(err.message).not.toContain(credentials.secretAccessKey);
  });

  it('streams a 5 MB document in pieces, giving back the very bytes', async () => {
    const bytes = randomBytes(5 * 1024 * 1024);
    const { key } = await storage.put(bytes);
    const chunks = await readChunks(await storage.stream(key));
    expect(chunks.length).toBeGreaterThan(1);
    const back = Buffer.concat(chunks);
    expect(back.length).toBe(bytes.length);
    expect(back.equals(bytes)).toBe(true);
  });
  it('checks the whole object for its first range only, and again once the object was rewritten (issue 23)', async () => {
    const bytes = randomBytes(300 * 1024);
    const { key } = await storage.put(bytes);
    const wholeReads = jest.spyOn(documentStorage, 'verifiedStream');
    try {
      const first = await storage.download(key, () => ({ start: 10, end: 1009 }));
      expect((await readAll(first.stream)).equals(bytes.subarray(10, 1010))).toBe(true);
      expect(wholeReads).toHaveBeenCalledTimes(1);
      wholeReads.mockClear();
      for (const [start, end] of [
        [0, 99],
        [bytes.length - 5, bytes.length - 1],
      ]) {
        const part = await storage.download(key, () => ({ start, end }));
        expect(part.size).toBe(bytes.length);
        expect(part.range).toEqual({ start, end });
        expect((await readAll(part.stream)).equals(bytes.subarray(start, end + 1))).toBe(true);
      }
      expect(wholeReads).not.toHaveBeenCalled();
      // Rewritten behind the store's back (same length, another ETag): checked whole again, and refused.
      const tampered = Buffer.from(bytes);
      tampered[tampered.length - 1] ^= 0xff;
      await raw.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: tampered }));
      const range = await storage.download(key, () => ({ start: 0, end: 99 }));
      await expect(readAll(range.stream)).rejects.toThrow(/does not match its hash/);
      expect(wholeReads).toHaveBeenCalledTimes(1);
    } finally {
      wholeReads.mockRestore();
    }
  });
});
