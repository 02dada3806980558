import { createHash, randomBytes, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import {
  access,
  copyFile,
  link,
  mkdir,
  open,
  readFile,
  stat,
  statfs,
  unlink,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import type { ByteRange } from '../../common/http/byte-range';
import {
  DocumentStorage,
  piecesOf,
  type StoredPrefix,
  rangeOf,
  sha256Of,
  STORAGE_KEY,
  VerifiedKeys,
  verifiedStream,
} from './document-storage';

/**
 * Files under $DATA_DIR/files/ab/cd/<sha256>. A write goes to a temporary file first and is then hard-linked into
 * place, which fails if the name exists: a crash never leaves a half-written document and nothing is overwritten.
 */
/** Free space under which readiness reports the documents' disk as full. */
const FULL_BELOW_BYTES = 1_048_576;

export class LocalDocumentStorage extends DocumentStorage {
  /** Keys read whole and matched, by the file's size, modification time and inode then. */
  private readonly verified = new VerifiedKeys();

  constructor(private readonly root: string) {
    super();
  }

  async put(
    bytes: Buffer | readonly Buffer[],
    known?: string,
    extending?: StoredPrefix | null,
  ): Promise<{ key: string; size: number }> {
    const pieces = piecesOf(bytes);
    const size = pieces.reduce((n, piece) => n + piece.length, 0);
    const key = known && STORAGE_KEY.test(known) ? known : sha256Of(pieces);
    const path = this.pathOf(key);
    if (await this.exists(key)) return { key, size };
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(join(path, '..'), { recursive: true });
      if (!(extending && (await this.copyPrefix(extending, size, temp)))) {
        await writeFile(temp, pieces, { flag: 'wx', mode: 0o640 });
      } else {
        // The stored prefix copied by the kernel (a 3 MB book: about 1.5 ms, against 5–7 ms to write it from
        // memory), then the rest appended.
        await writeFile(temp, tailOf(pieces, extending.length), { flag: 'a' });
      }
    } catch (err) {
      // A recursive mkdir on a read-only file system says ENOENT: ask the folder itself, whose EROFS (or EACCES)
      // is what the error filter answers 503 for (issue 24). A partly written temporary file is removed.
      await unlink(temp).catch(() => undefined);
      throw await access(this.root, constants.W_OK).then(
        () => err,
        (fault: unknown) => fault,
      );
    }
    try {
      await link(temp, path);
    } catch (err) {
      // Another writer stored the same bytes first: same key, same content.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    return { key, size };
  }

  /** Copies the stored document `prefix` to `temp` when it is there with the size said; false otherwise. */
  private async copyPrefix(prefix: StoredPrefix, size: number, temp: string): Promise<boolean> {
    if (!STORAGE_KEY.test(prefix.key) || prefix.length <= 0 || prefix.length > size) return false;
    const source = this.pathOf(prefix.key);
    const stats = await stat(source).catch(() => null);
    if (!stats?.isFile() || stats.size !== prefix.length) return false;
    try {
      await copyFile(source, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      return true;
    } catch {
      // Whatever stopped the copy (the file gone meanwhile), the bytes are written whole instead.
      await unlink(temp).catch(() => undefined);
      return false;
    }
  }

  async getHashed(key: string): Promise<{ bytes: Buffer; hash: Hash }> {
    if (!STORAGE_KEY.test(key)) throw new AppError('NOT_FOUND', 'No such document.');
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('NOT_FOUND', 'No such document.');
      throw err;
    }
    const hash = createHash('sha256').update(bytes);
    if (hash.copy().digest('hex') !== key) throw new Error(`stored document ${key} does not match its hash`);
    return { bytes, hash };
  }

  async stream(key: string): Promise<Readable> {
    return (await this.download(key)).stream;
  }

  async download(
    key: string,
    want?: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; size: number; range: ByteRange | null }> {
    if (!STORAGE_KEY.test(key)) throw new AppError('NOT_FOUND', 'No such document.');
    // Opened here, not by the stream, so that an absent file rejects the promise instead of failing a started reply.
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('NOT_FOUND', 'No such document.');
      throw err;
    }
    let size: number;
    let fingerprint: string;
    try {
      // The open file's own status: a file replaced or written to since it was checked has another inode or mtime.
      const stat = await handle.stat({ bigint: true });
      size = Number(stat.size);
      fingerprint = `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;
    } catch (err) {
      await handle.close();
      throw err;
    }
    const range = want?.(size) ?? null;
    if (range && this.verified.lookup(key, fingerprint))
      return { stream: handle.createReadStream({ start: range.start, end: range.end }), size, range };
    const whole = verifiedStream(key, handle.createReadStream(), () => this.verified.remember(key, fingerprint, size));
    return { stream: range ? rangeOf(whole, range.start, range.end) : whole, size, range };
  }

  async exists(key: string): Promise<boolean> {
    if (!STORAGE_KEY.test(key)) return false;
    return access(this.pathOf(key), constants.F_OK).then(
      () => true,
      () => false,
    );
  }

  async delete(key: string): Promise<boolean> {
    if (!STORAGE_KEY.test(key)) return false;
    this.verified.forget(key);
    try {
      await unlink(this.pathOf(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.R_OK | constants.W_OK).catch(() => {
      throw new Error(`the document folder ${this.root} is not writable`);
    });
    // Writable but full (issue 24): less than a document's worth of room left is a fault too.
    const room = await statfs(this.root);
    if (room.bavail * room.bsize < FULL_BELOW_BYTES) throw new Error(`the document folder ${this.root} is full`);
  }

  private pathOf(key: string): string {
    return join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }
}

/** The pieces' bytes after the first `skip`. */
function tailOf(pieces: readonly Buffer[], skip: number): Buffer[] {
  const tail: Buffer[] = [];
  let left = skip;
  for (const piece of pieces) {
    if (left >= piece.length) left -= piece.length;
    else {
      tail.push(left ? piece.subarray(left) : piece);
      left = 0;
    }
  }
  return tail;
}
