import { createHash, type Hash } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import type { ByteRange } from '../../common/http/byte-range';

/**
 * Where documents (and logos, signature images, signed PDFs) live. Content-addressed by SHA-256: the same bytes get
 * the same key and nothing is ever overwritten. Chosen by configuration in storage.module.ts: a local folder, or an
 * S3-compatible bucket.
 */
export abstract class DocumentStorage {
  /**
   * Stores the bytes and answers their key (hex SHA-256). Storing bytes already present is a no-op. `sha256` is the
   * bytes' hash when the caller already has it over exactly these bytes (the signing engine keeps a running hash of
   * the document it appends to: issue 23's "hash once"); a wrong one would be a bug, which S3 refuses by its checksum
   * and every later read of the key reports.
   */
  abstract put(
    bytes: Buffer | readonly Buffer[],
    sha256?: string,
    extending?: StoredPrefix | null,
  ): Promise<{ key: string; size: number }>;
  /** The bytes of a key, checked against the key; NOT_FOUND when absent. */
  async get(key: string): Promise<Buffer> {
    return (await this.getHashed(key)).bytes;
  }
  /**
   * As get(), with the SHA-256 the bytes were checked with, not yet digested: the signing engine continues it over
   * the revisions it appends instead of hashing the document again (issue 23: "hash once").
   */
  abstract getHashed(key: string): Promise<{ bytes: Buffer; hash: Hash }>;
  /**
   * The bytes of a key as a stream, for downloads: NOT_FOUND rejects the promise before any byte; bytes that do not
   * match the key destroy the stream with an error at the end (see verifiedStream).
   */
  abstract stream(key: string): Promise<Readable>;
  /**
   * As stream(), with the document's length in bytes (for Content-Length and HTTP range answers). `want` is given the
   * length and answers the bytes to send (null: all of them); the stream then carries only those (`range`). A range
   * of a key whose stored bytes were read whole and matched since they last changed reads only its own bytes (see
   * VerifiedKeys); any other is checked like the whole (see rangeOf).
   */
  abstract download(
    key: string,
    want?: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; size: number; range: ByteRange | null }>;
  abstract exists(key: string): Promise<boolean>;
  /**
   * Deletes a key's bytes (issue 24: retention and erasure, which first make sure no live row refers to the key);
   * answers whether something was deleted. The only way anything stored ever goes.
   */
  abstract delete(key: string): Promise<boolean>;
  /** For readiness: throws (with a message naming the store) when the store cannot be read and written now. */
  abstract check(): Promise<void>;
}

export const STORAGE_KEY = /^[0-9a-f]{64}$/;

/**
 * put()'s hint that the bytes start with a document stored already (the signing engine's new version is the one it
 * appended a revision to, followed by that revision): a store that can copy it inside itself writes only the rest.
 * The stored bytes are taken for what their key says, as they were when written (a store never changes a key's
 * bytes); their size is checked, and a key missing or of another size is written whole.
 */
export interface StoredPrefix {
  key: string;
  length: number;
}

/**
 * The bytes put() was given, as pieces: a document the signing engine made is its stored file followed by each
 * revision's update (issue 23: joining them copied 3 MB per revision), written one after the other.
 */
export const piecesOf = (bytes: Buffer | readonly Buffer[]): readonly Buffer[] =>
  Buffer.isBuffer(bytes) ? [bytes] : bytes;

/** The SHA-256 (hex) of the pieces in order: of the bytes they make. */
export function sha256Of(pieces: readonly Buffer[]): string {
  const hash = createHash('sha256');
  for (const piece of pieces) hash.update(piece);
  return hash.digest('hex');
}

export const hashMismatch = (key: string): Error => new Error(`stored document ${key} does not match its hash`);

/**
 * Passes the source's bytes on while hashing them, and fails the stream when the whole does not match the key. The
 * last chunk is held back until the hash is checked, so a reader of a damaged document never receives all of it: a
 * response with a Content-Length comes up short, and a chunked one is cut off, instead of looking complete.
 */
export function verifiedStream(key: string, source: Readable, onVerified?: () => void): Readable {
  const hash = createHash('sha256');
  let held: Buffer | null = null;
  const verifier = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      const previous = held;
      held = chunk;
      done(null, previous ?? undefined);
    },
    flush(done) {
      if (hash.digest('hex') !== key) return done(hashMismatch(key));
      onVerified?.();
      done(null, held ?? undefined);
    },
  });
  // pipeline() destroys the source when the reader stops early (a client that went away) and hands a read error on
  // to the verifier, which is the stream the reader listens to; the callback only keeps it from being reported twice.
  pipeline(source, verifier, () => undefined);
  return verifier;
}

/** How many verified keys a store remembers: the documents being viewed now, a few hundred bytes each. */
const VERIFIED_KEYS = 1024;

/**
 * The keys whose stored bytes were last read whole and matched the key, each with what identified the stored object
 * then (a local file's size, modification time and inode; an object's ETag) and its length (issue 23). pdf.js asks for
 * a document in a dozen ranges: the first is checked by reading the whole, the others read only their own bytes while
 * the object is still the one that was checked. An object that changed since (another fingerprint) is checked again.
 * Per process and bounded (the oldest goes first), so a restart or a busy node only costs one more whole read.
 */
export class VerifiedKeys {
  private readonly entries = new Map<string, { fingerprint: string; size: number }>();

  constructor(private readonly limit = VERIFIED_KEYS) {}

  /** The remembered length of a key checked as `fingerprint` (any fingerprint when none is given), else null. */
  lookup(key: string, fingerprint?: string): { fingerprint: string; size: number } | null {
    const entry = this.entries.get(key);
    if (!entry || (fingerprint !== undefined && entry.fingerprint !== fingerprint)) return null;
    return entry;
  }

  remember(key: string, fingerprint: string, size: number): void {
    this.entries.delete(key);
    this.entries.set(key, { fingerprint, size });
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * Only the bytes [start, end] (inclusive) of a verified stream, for an HTTP range answer. The whole document is still
 * read and hashed (a store answers no part of a document it cannot vouch for: the ranges of a content-addressed file
 * are checked like the whole), and the last piece of the range is held back until the source has ended verified, so a
 * range of a damaged document comes up short instead of looking complete. A document's range costs a read of the
 * whole (a few milliseconds for a local file of a few MB; a whole GET from a bucket) but no memory beyond a chunk:
 * the stores do it for the first range of a key only (VerifiedKeys).
 */
export function rangeOf(source: Readable, start: number, end: number): Readable {
  let offset = 0;
  let held: Buffer | null = null;
  const range = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end + 1 - offset, chunk.length);
      offset += chunk.length;
      if (to <= from) return done();
      const previous = held;
      held = chunk.subarray(from, to);
      done(null, previous ?? undefined);
    },
    flush(done) {
      done(null, held ?? undefined);
    },
  });
  pipeline(source, range, () => undefined);
  return range;
}
