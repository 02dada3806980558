import crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

  it('stores a document given as pieces (a file and its revisions) as the bytes they make, under their SHA-256', async () => {
    const pieces = [Buffer.from('%PDF-1.7 the file\n'), Buffer.alloc(0), Buffer.from('1 0 obj\n<<>>\nendobj\n')];
    const whole = Buffer.concat(pieces);
    const sha = createHash('sha256').update(whole).digest('hex');
    expect(await storage.put(pieces)).toEqual({ key: sha, size: whole.length });
    expect((await storage.get(sha)).equals(whole)).toBe(true);
    const more = [whole, Buffer.from('2 0 obj\nnull\nendobj\n')];
    const moreSha = createHash('sha256').update(Buffer.concat(more)).digest('hex');
    expect(await storage.put(more, moreSha)).toEqual({ key: moreSha, size: Buffer.concat(more).length });
    expect((await storage.get(moreSha)).equals(Buffer.concat(more))).toBe(true);
  });

  it('writes a document that extends a stored one as a copy of it and the rest, and whole when that one is not there', async () => {
    const first = Buffer.concat([Buffer.from('%PDF-1.7 version one\n'), Buffer.alloc(70_000, 0x41)]);
    const { key: firstKey } = await storage.put(first);
    const update = Buffer.from('\n2 0 obj\nnull\nendobj\n');
    const second = Buffer.concat([first, update]);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    // The pieces as the signing engine gives them: the stored version in two pieces, then the update.
    const pieces = [first.subarray(0, 10), first.subarray(10), update];
    const prefix = { key: firstKey, length: first.length };
    expect(await storage.put(pieces, sha(second), prefix)).toEqual({ key: sha(second), size: second.length });
    expect((await storage.get(sha(second))).equals(second)).toBe(true);
    // A prefix that is not stored, or not of the length said, is not copied: the bytes are written whole.
    for (const [i, wrong] of [
      { key: 'f'.repeat(64), length: first.length },
      { key: firstKey, length: first.length - 1 },
    ].entries()) {
      const third = Buffer.concat([first, Buffer.from(`\n% ${i}\n`)]);
      await storage.put([first, Buffer.from(`\n% ${i}\n`)], sha(third), wrong);
      expect((await storage.get(sha(third))).equals(third)).toBe(true);
    }
    // The copy takes the stored bytes for what their key says (a store never changes them): were a file changed
    // behind its back, the copy would carry the change, and its first read would say so.
    writeFileSync(join(root, firstKey.slice(0, 2), firstKey.slice(2, 4), firstKey), Buffer.alloc(first.length, 0x42));
    const fourth = Buffer.concat([first, Buffer.from('\n% four\n')]);
    await storage.put([first, Buffer.from('\n% four\n')], sha(fourth), prefix);
    await expect(storage.get(sha(fourth))).rejects.toThrow(/does not match its hash/);
  });

  it('gives a document with the SHA-256 its read was checked with, to be continued over what is appended', async () => {
    const bytes = Buffer.from('%PDF-1.7 a document read back');
    const { key } = await storage.put(bytes);
    const read = await storage.getHashed(key);
    expect(read.bytes.equals(bytes)).toBe(true);
    const update = Buffer.from('\n1 0 obj\nnull\nendobj\n');
    expect(read.hash.copy().update(update).digest('hex')).toBe(
      createHash('sha256')
        .update(Buffer.concat([bytes, update]))
        .digest('hex'),
    );
    writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), Buffer.from('%PDF-1.7 changed'));
    await expect(storage.getHashed(key)).rejects.toThrow(/does not match its hash/);
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
  describe('ranges of a key checked whole before (issue 23)', () => {
    const large = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => i % 251));
    let hashes: jest.SpyInstance;
    beforeEach(() => {
      hashes = jest.spyOn(crypto, 'createHash');
    });
    afterEach(() => hashes.mockRestore());

    it('reads and hashes the whole file for the first range only; later ranges read only their bytes', async () => {
      const { key } = await storage.put(large);
      hashes.mockClear();
      const first = await storage.download(key, () => ({ start: 10, end: 1009 }));
      expect(first.range).toEqual({ start: 10, end: 1009 });
      expect((await readAll(first.stream)).equals(large.subarray(10, 1010))).toBe(true);
      expect(hashes).toHaveBeenCalledTimes(1); // the whole file was hashed for the first range

      hashes.mockClear();
      for (const [start, end] of [
        [0, 99],
        [2_000_000, 2_262_143],
        [large.length - 5, large.length - 1],
      ]) {
        const part = await storage.download(key, () => ({ start, end }));
        const bytes = await readAll(part.stream);
        expect(bytes.equals(large.subarray(start, end + 1))).toBe(true);
        expect(part.size).toBe(large.length);
      }
      expect(hashes).not.toHaveBeenCalled();
      // The whole document (no range) is always read whole and checked as it goes.
      expect((await readAll((await storage.download(key)).stream)).equals(large)).toBe(true);
      expect(hashes).toHaveBeenCalledTimes(1);
    });

    it('checks a file again once it changed on disk, even with the same length and modification time', async () => {
      const { key } = await storage.put(large);
      const path = join(root, key.slice(0, 2), key.slice(2, 4), key);
      await readAll((await storage.download(key, () => ({ start: 0, end: 99 }))).stream);
      const before = statSync(path);
      const tampered = Buffer.from(large);
      tampered[tampered.length - 1] ^= 0xff;
      writeFileSync(path, tampered);
      utimesSync(path, before.atime, before.mtime);
      hashes.mockClear();
      const range = await storage.download(key, () => ({ start: 0, end: 99 }));
      await expect(readAll(range.stream)).rejects.toThrow(`stored document ${key} does not match its hash`);
      expect(hashes).toHaveBeenCalledTimes(1);
      // Put back as it was: checked whole once more, then remembered again.
      writeFileSync(path, large);
      hashes.mockClear();
      expect(
        (await readAll((await storage.download(key, () => ({ start: 5, end: 9 }))).stream)).equals(
          large.subarray(5, 10),
        ),
      ).toBe(true);
      expect(
        (await readAll((await storage.download(key, () => ({ start: 5, end: 9 }))).stream)).equals(
          large.subarray(5, 10),
        ),
      ).toBe(true);
      expect(hashes).toHaveBeenCalledTimes(1);
    });

    it('never remembers a file that did not match: each range of it is refused', async () => {
      const original = Buffer.alloc(200 * 1024, 'a');
      const { key } = await storage.put(original);
      const tampered = Buffer.from(original);
      tampered[tampered.length - 1] = 0x62;
      writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), tampered);
      for (let i = 0; i < 2; i++) {
        const range = await storage.download(key, () => ({ start: 0, end: 99 }));
        await expect(readAll(range.stream)).rejects.toThrow(/does not match its hash/);
      }
    });
  });
});
