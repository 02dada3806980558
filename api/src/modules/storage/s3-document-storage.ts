import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import type { ByteRange } from '../../common/http/byte-range';
import { DocumentStorage, hashMismatch, rangeOf, STORAGE_KEY, VerifiedKeys, verifiedStream } from './document-storage';

export interface S3StorageOptions {
  /** An S3-compatible server's address (MinIO, Garage…); null for AWS itself. */
  endpoint: string | null;
  bucket: string;
  region: string;
  /** null: the AWS SDK's default chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  forcePathStyle: boolean;
}

interface S3Failure {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const failure = (err: unknown): S3Failure => (typeof err === 'object' && err !== null ? (err as S3Failure) : {});
const statusOf = (err: unknown) => failure(err).$metadata?.httpStatusCode;
/** An absent object (GetObject: NoSuchKey; HeadObject has no body, so only its 404). A missing bucket is not one. */
const isAbsent = (err: unknown) =>
  failure(err).name !== 'NoSuchBucket' &&
  (failure(err).name === 'NoSuchKey' || failure(err).name === 'NotFound' || statusOf(err) === 404);
/** The conditional PutObject lost to another writer of the same key (412), or raced one still writing it (409). */
const isAlreadyThere = (err: unknown) =>
  failure(err).name === 'PreconditionFailed' ||
  failure(err).name === 'ConditionalRequestConflict' ||
  statusOf(err) === 412 ||
  statusOf(err) === 409;

const notFound = () => new AppError('NOT_FOUND', 'No such document.');

/**
 * Documents as objects `documents/ab/cd/<sha256>` of one bucket (the same fan-out as the local folder). Objects are
 * written only when absent (HeadObject, then a PutObject with If-None-Match: *), so nothing is ever overwritten, and
 * carry their SHA-256 so that a store which checks checksums refuses a damaged upload. Every read is checked against
 * the key, as locally.
 */
export class S3DocumentStorage extends DocumentStorage {
  private readonly client: S3Client;
  /** Keys read whole and matched, by the object's ETag then (a rewritten object gets another). */
  private readonly verified = new VerifiedKeys();

  constructor(private readonly options: S3StorageOptions) {
    super();
    // The SDK warns on the console, once, when a client is made on a Node.js older than its next major will need. The
    // server's supported Node.js is the project's decision (package.json engines); an operator's own setting wins.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  }

  /**
   * The client's kept-alive connections would otherwise hold the process open. Not onModuleDestroy: the job runners
   * finish their running jobs (which may store a signed PDF) in beforeApplicationShutdown, after it.
   */
  onApplicationShutdown(): void {
    this.client.destroy();
  }

  /** Where the documents are, for logs and errors: never the credentials. */
  describe(): string {
    return `bucket ${this.options.bucket} at ${this.options.endpoint ?? `AWS S3 (${this.options.region})`}`;
  }

  // An object cannot be extended in place: the bytes go up whole (`extending` is a local store's hint).
  async put(given: Buffer | readonly Buffer[], known?: string): Promise<{ key: string; size: number }> {
    const bytes = Buffer.isBuffer(given) ? given : Buffer.concat(given as Buffer[]);
    // A hash the caller already has is still checked by S3 against the bytes (ChecksumSHA256).
    const digest =
      known && STORAGE_KEY.test(known) ? Buffer.from(known, 'hex') : createHash('sha256').update(bytes).digest();
    const key = digest.toString('hex');
    if (await this.exists(key)) return { key, size: bytes.length };
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: 'application/octet-stream',
          ChecksumSHA256: digest.toString('base64'),
          IfNoneMatch: '*',
        }),
      );
    } catch (err) {
      // Another writer stored the same bytes first: same key, same content.
      if (!isAlreadyThere(err)) throw err;
    }
    return { key, size: bytes.length };
  }

  async getHashed(key: string): Promise<{ bytes: Buffer; hash: Hash }> {
    const { body } = await this.open(key);
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    for await (const chunk of body) {
      hash.update(chunk as Buffer);
      chunks.push(chunk as Buffer);
    }
    if (hash.copy().digest('hex') !== key) throw hashMismatch(key);
    return { bytes: Buffer.concat(chunks), hash };
  }

  async stream(key: string): Promise<Readable> {
    return verifiedStream(key, (await this.open(key)).body);
  }

  async download(
    key: string,
    want?: (size: number) => ByteRange | null,
  ): Promise<{ stream: Readable; size: number; range: ByteRange | null }> {
    // A key checked before: only the range's bytes, on condition that the object is still the one checked (If-Match
    // on its ETag; another object answers 412 and is checked whole again).
    const known = want && STORAGE_KEY.test(key) ? this.verified.lookup(key) : null;
    const range = known && want ? want(known.size) : null;
    if (known && range) {
      const part = await this.openRange(key, range, known.fingerprint, known.size);
      if (part) return { stream: part, size: known.size, range };
      this.verified.forget(key);
    }
    const { body, size, etag } = await this.open(key);
    const wanted = want?.(size) ?? null;
    const whole = verifiedStream(key, body, () => etag && this.verified.remember(key, etag, size));
    return { stream: wanted ? rangeOf(whole, wanted.start, wanted.end) : whole, size, range: wanted };
  }

  async exists(key: string): Promise<boolean> {
    if (!STORAGE_KEY.test(key)) return false;
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (err) {
      if (isAbsent(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    this.verified.forget(key);
    if (!(await this.exists(key))) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
    return true;
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (err) {
      const status = statusOf(err);
      const reason = [failure(err).name, status ? `HTTP ${status}` : null].filter(Boolean).join(', ');
      throw new Error(`the S3 ${this.describe()} cannot be reached (${reason || 'no answer'})`);
    }
  }

  /** The response body of a key's object: NOT_FOUND (before any byte) when it is absent or the key is malformed. */
  private async open(key: string): Promise<{ body: Readable; size: number; etag: string | undefined }> {
    if (!STORAGE_KEY.test(key)) throw notFound();
    let res: GetObjectCommandOutput;
    try {
      res = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (isAbsent(err)) throw notFound();
      throw err;
    }
    if (!(res.Body instanceof Readable)) throw new Error(`the S3 ${this.describe()} answered ${key} without a body`);
    if (res.ContentLength === undefined) {
      res.Body.destroy();
      throw new Error(`the S3 ${this.describe()} answered ${key} without its length`);
    }
    return { body: res.Body, size: res.ContentLength, etag: res.ETag };
  }

  /**
   * The bytes of a range of the object checked as `etag`, or null when the object is no longer that one (412) or its
   * length changed; NOT_FOUND when it is gone.
   */
  private async openRange(key: string, range: ByteRange, etag: string, size: number): Promise<Readable | null> {
    let res: GetObjectCommandOutput;
    try {
      res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          Range: `bytes=${range.start}-${range.end}`,
          IfMatch: etag,
        }),
      );
    } catch (err) {
      if (isAbsent(err)) {
        this.verified.forget(key);
        throw notFound();
      }
      if (failure(err).name === 'PreconditionFailed' || statusOf(err) === 412) return null;
      throw err;
    }
    if (!(res.Body instanceof Readable)) throw new Error(`the S3 ${this.describe()} answered ${key} without a body`);
    if (res.ContentRange !== `bytes ${range.start}-${range.end}/${size}` || res.ETag !== etag) {
      res.Body.destroy();
      return null;
    }
    return res.Body;
  }

  private objectKey(key: string): string {
    return `documents/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;
  }
}
