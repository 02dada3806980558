import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import { rangeOf } from './document-storage';
import { LocalDocumentStorage } from './local-document-storage';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('LocalDocumentStorage', () => {
  let root: string;
  let storage: LocalDocumentStorage;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'esign-storage-'));
    storage = new LocalDocumentStorage(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('stores bytes under their SHA-256 and gives them back', async () => {
    const bytes = Buffer.from('%PDF-1.7 a document');
    const { key, size } = await storage.put(bytes);
    expect(key).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(size).toBe(bytes.length);
    expect(await storage.exists(key)).toBe(true);
    expect((await storage.get(key)).equals(bytes)).toBe(true);
    expect(statSync(join(root, key.slice(0, 2), key.slice(2, 4), key)).isFile()).toBe(true);
  });

  it("takes the caller's SHA-256 when it has one (the signing engine's running hash), and hashes when it is not one", async () => {
    const bytes = Buffer.from('%PDF-1.7 signed');
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect((await storage.put(bytes, sha)).key).toBe(sha);
    expect((await storage.get(sha)).equals(bytes)).toBe(true);
    const other = Buffer.from('%PDF-1.7 other');
    expect((await storage.put(other, '../../etc/passwd')).key).toBe(createHash('sha256').update(other).digest('hex'));
  });

  it('never overwrites: storing the same bytes again keeps the original file', async () => {
    const bytes = Buffer.from('same content');
    const { key } = await storage.put(bytes);
    const path = join(root, key.slice(0, 2), key.slice(2, 4), key);
    const before = statSync(path);
    await storage.put(bytes);
    await Promise.all(Array.from({ length: 10 }, () => storage.put(bytes)));
    const after = statSync(path);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(readdirSync(join(root, key.slice(0, 2), key.slice(2, 4)))).toEqual([key]); // no temporary files left
  });

  it('refuses to hand out bytes that no longer match their key', async () => {
    const { key } = await storage.put(Buffer.from('original'));
    writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), 'tampered');
    await expect(storage.get(key)).rejects.toThrow(/does not match its hash/);
  });

  it('answers NOT_FOUND for unknown or malformed keys, without touching the file system outside its root', async () => {
    await expect(storage.get('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(storage.get('../../etc/passwd')).rejects.toBeInstanceOf(AppError);
    expect(await storage.exists('../x')).toBe(false);
  });

  it('streams the bytes of a key, also a document of several chunks', async () => {
    const small = Buffer.from('%PDF-1.7 streamed');
    expect((await readAll(await storage.stream((await storage.put(small)).key))).equals(small)).toBe(true);
    const large = Buffer.alloc(3 * 1024 * 1024 + 17, 'x');
    expect((await readAll(await storage.stream((await storage.put(large)).key))).equals(large)).toBe(true);
  });

  it('fails a stream whose bytes no longer match their key, before handing out all of them', async () => {
    const original = Buffer.alloc(200 * 1024, 'a');
    const { key } = await storage.put(original);
    const tampered = Buffer.from(original);
    tampered[tampered.length - 1] = 0x62;
    writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), tampered);
    const stream = await storage.stream(key);
    let received = 0;
    const read = (async () => {
      for await (const chunk of stream) received += (chunk as Buffer).length;
    })();
    await expect(read).rejects.toThrow(`stored document ${key} does not match its hash`);
    expect(received).toBeLessThan(tampered.length);
    expect(stream.destroyed).toBe(true);
  });

  it('answers a document with its length, and ranges of it across the stream chunks (rangeOf)', async () => {
    const large = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => i % 251));
    const { key } = await storage.put(large);
    const whole = await storage.download(key);
    expect(whole.size).toBe(large.length);
    expect((await readAll(whole.stream)).equals(large)).toBe(true);
    for (const [start, end] of [
      [0, 0],
      [65_530, 65_540],
      [100_000, 2_000_000],
      [large.length - 5, large.length - 1],
    ]) {
      const part = await readAll(rangeOf((await storage.download(key)).stream, start, end));
      expect(part.equals(large.subarray(start, end + 1))).toBe(true);
    }
  });

  it('fails a range of a document whose bytes no longer match, even when the damage is outside the range', async () => {
    const original = Buffer.alloc(200 * 1024, 'a');
    const { key } = await storage.put(original);
    const tampered = Buffer.from(original);
    tampered[tampered.length - 1] = 0x62;
    writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), tampered);
    const range = rangeOf((await storage.download(key)).stream, 0, 99);
    let received = 0;
    const read = (async () => {
      for await (const chunk of range) received += (chunk as Buffer).length;
    })();
    await expect(read).rejects.toThrow(`stored document ${key} does not match its hash`);
    expect(received).toBeLessThan(100);
  });

  it('rejects stream() with NOT_FOUND for unknown or malformed keys, before any byte', async () => {
    await expect(storage.stream('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(storage.stream('../../etc/passwd')).rejects.toBeInstanceOf(AppError);
    await expect(storage.stream('../../etc/passwd')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
