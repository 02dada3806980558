import { BackupMessages } from '@esign/contract';
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { extract, pack, type Pack } from 'tar-stream';
import type { AppConfig } from '../../config/app-config';
import { referencedKeys, type RowReader } from '../../database/document-references';
import { version as APP_VERSION } from '../../../package.json';

/**
 * Backups (issue 24): one archive, a tar, holding a consistent copy of the SQLite database (SQLite's online backup
 * API through better-sqlite3, taken while the server runs: WAL lets another connection read and copy), every stored
 * document the copy refers to, and `manifest.json` with the size and SHA-256 of each part; after the tar's end a
 * one-line trailer carries the SHA-256 of every byte before it, so a byte changed anywhere (a part, the manifest, a
 * header, the padding) is refused. A restore checks all of it before it writes anything, and writes into a fresh
 * DATA_DIR through a temporary sibling folder renamed into place.
 *
 * With MariaDB/MySQL or an S3 bucket, the archive holds what is local (the documents in DATA_DIR/files, or the SQLite
 * database) and says what the operator's own backups must cover (BackupMessages).
 */

export const BACKUP_FORMAT = 'esign-backup';
export const BACKUP_VERSION = 1;
const TRAILER_PREFIX = '\nesign-backup-sha256 ';
const TRAILER_LENGTH = TRAILER_PREFIX.length + 64 + 1;
const DATABASE_PART = 'database/esign.sqlite';
const MANIFEST = 'manifest.json';
const FILE_PART = /^files\/([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

export interface BackupPart {
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  created_at: string;
  app_version: string;
  /** The database engine of the installation backed up, and where its documents were. */
  database: 'sqlite' | 'mysql';
  storage: 'local' | 's3';
  /** What the archive holds, and what the operator's own backups must hold (BackupMessages). */
  covers: string[];
  not_covered: string[];
  parts: BackupPart[];
}

export interface BackupResult {
  file: string;
  bytes: number;
  manifest: BackupManifest;
  /** Documents in the archive. */
  documents: number;
}

/** A backup refused or not written, with what to do (BackupMessages). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all));

const filesDir = (config: Pick<AppConfig, 'dataDir'>) => join(config.dataDir, 'files');
const filePath = (root: string, key: string) => join(root, key.slice(0, 2), key.slice(2, 4), key);

/** What a backup of this installation holds and what it leaves to the operator; throws when it would hold nothing. */
export function coverage(config: Pick<AppConfig, 'database' | 'storage' | 'dataDir'>): {
  database: boolean;
  files: boolean;
  notCovered: string[];
} {
  const database = config.database.engine === 'sqlite';
  const files = config.storage.kind === 'local';
  const bucket = config.storage.kind === 's3' ? config.storage.bucket : '';
  if (!database && !files) throw new BackupError(fill(BackupMessages.nothingToBackUp, { bucket }));
  const notCovered = [
    ...(database ? [] : [BackupMessages.notCoveredMysql]),
    ...(files ? [] : [fill(BackupMessages.notCoveredS3, { bucket })]),
  ];
  return { database, files, notCovered };
}

/** Resolves when `stream` has been written as one tar entry (tar-stream takes entries one at a time). */
function addEntry(archive: Pack, name: string, size: number, source: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const entry = archive.entry({ name, size, mode: 0o600, mtime: new Date(0) }, (err) =>
      err ? reject(err) : resolve(),
    );
    source.once('error', (err) => {
      entry.destroy(err);
      reject(err);
    });
    source.pipe(entry);
  });
}

/** A stream that hashes what passes, and fails at its end when the bytes' SHA-256 is not `expected`. */
function checked(expected: string | null, onDigest: (hex: string) => void, mismatch: () => Error): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const hex = hash.digest('hex');
      onDigest(hex);
      done(expected && hex !== expected ? mismatch() : null);
    },
  });
}

/** Every document file under DATA_DIR/files (for MariaDB: the archive holds them all). */
async function allStoredKeys(root: string): Promise<string[]> {
  const keys: string[] = [];
  const level = async (dir: string) =>
    (await readdir(dir).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{2}$/.test(n));
  for (const a of await level(root))
    for (const b of await level(join(root, a)))
      for (const name of await readdir(join(root, a, b)))
        if (/^[0-9a-f]{64}$/.test(name) && name.startsWith(a + b)) keys.push(name);
  return keys.sort();
}

/**
 * Writes the backup to `target` (through `target.partial`, renamed when complete, mode 0600: it holds the
 * installation's secrets). The SQLite copy is taken first; the documents it refers to follow, each checked against its
 * key. Throws BackupError when something the database needs is missing or damaged (nothing is left at `target`).
 */
export async function writeBackup(
  config: Pick<AppConfig, 'database' | 'storage' | 'dataDir'>,
  target: string,
  now: Date = new Date(),
): Promise<BackupResult> {
  const { database, files, notCovered } = coverage(config);
  await mkdir(dirname(target), { recursive: true });
  const work = `${target}.${randomBytes(4).toString('hex')}.partial`;
  const copy = `${work}.sqlite`;
  const root = filesDir(config);
  try {
    let keys: string[] = [];
    if (database) {
      const file = (config.database as { file: string }).file;
      if (!(await stat(file).catch(() => null))) throw new BackupError(fill(BackupMessages.noDatabase, { file }));
      const source = new Database(file, { fileMustExist: true, timeout: 10_000 });
      try {
        // SQLite's online backup API: a consistent snapshot, page by page, while the server keeps writing.
        await source.backup(copy);
      } finally {
        source.close();
      }
      const snapshot = new Database(copy);
      try {
        const integrity = snapshot.pragma('integrity_check', { simple: true });
        if (integrity !== 'ok')
          throw new BackupError(fill(BackupMessages.databaseDamaged, { detail: String(integrity).slice(0, 200) }));
        // One self-contained file (no -wal beside it); the server turns WAL on again when it opens it.
        snapshot.pragma('journal_mode = DELETE');
        const read: RowReader = async (sql, params = []) =>
          snapshot.prepare(sql).all(...params) as Record<string, unknown>[];
        if (files) keys = [...(await referencedKeys(read))].sort();
      } finally {
        snapshot.close();
      }
    } else if (files) keys = await allStoredKeys(root);

    if (files) {
      const missing: string[] = [];
      for (const key of keys) if (!(await stat(filePath(root, key)).catch(() => null))) missing.push(key);
      if (missing.length)
        throw new BackupError(
          fill(BackupMessages.missingDocument, { count: missing.length, dir: root, key: missing[0] }),
        );
    }

    const parts: BackupPart[] = [];
    const archive = pack();
    const whole = createHash('sha256');
    let bytes = 0;
    const out = createWriteStream(work, { mode: 0o600 });
    const counter = new PassThrough();
    counter.on('data', (chunk: Buffer) => {
      whole.update(chunk);
      bytes += chunk.length;
    });
    const written = pipeline(archive, counter, out);
    const add = async (path: string, source: ReadStream, size: number, expected: string | null) => {
      let sha256 = '';
      const check = checked(
        expected,
        (hex) => (sha256 = hex),
        () => new BackupError(fill(BackupMessages.damagedDocument, { key: expected ?? path })),
      );
      await addEntry(archive, path, size, source.pipe(check));
      parts.push({ path, size, sha256 });
    };
    try {
      if (database) await add(DATABASE_PART, createReadStream(copy), (await stat(copy)).size, null);
      for (const key of keys) {
        const path = filePath(root, key);
        await add(
          `files/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`,
          createReadStream(path),
          (await stat(path)).size,
          key,
        );
      }
      const manifest: BackupManifest = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        created_at: now.toISOString(),
        app_version: APP_VERSION,
        database: config.database.engine,
        storage: config.storage.kind,
        covers: [
          ...(database ? [BackupMessages.coversSqlite] : []),
          ...(files
            ? [
                database
                  ? fill(BackupMessages.coversFiles, { count: keys.length })
                  : fill(BackupMessages.coversAllFiles, { count: keys.length, dir: root }),
              ]
            : []),
        ],
        not_covered: notCovered,
        parts,
      };
      const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
      await new Promise<void>((resolve, reject) =>
        archive.entry({ name: MANIFEST, size: text.length, mode: 0o600, mtime: new Date(0) }, text, (err) =>
          err ? reject(err) : resolve(),
        ),
      );
      archive.finalize();
      await written;
      // The trailer: the SHA-256 of every byte of the tar, so that no byte of the archive goes unchecked.
      await writeFile(work, `${TRAILER_PREFIX}${whole.digest('hex')}\n`, { flag: 'a' });
      const handle = await open(work, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(work, target);
      return { file: target, bytes: bytes + TRAILER_LENGTH, manifest, documents: keys.length };
    } catch (err) {
      archive.destroy();
      await written.catch(() => undefined);
      throw err;
    }
  } finally {
    await unlink(copy).catch(() => undefined);
    await unlink(work).catch(() => undefined);
  }
}

/** The archive's tar part (everything before the trailer) and the checksum the trailer names. */
async function trailerOf(file: string): Promise<{ tarBytes: number; sha256: string }> {
  const refuse = () => new BackupError(fill(BackupMessages.notAnArchive, { file }));
  const info = await stat(file).catch(() => null);
  if (!info?.isFile() || info.size < TRAILER_LENGTH + 1024) throw refuse();
  const handle = await open(file, 'r');
  try {
    const tail = Buffer.alloc(TRAILER_LENGTH);
    await handle.read(tail, 0, TRAILER_LENGTH, info.size - TRAILER_LENGTH);
    const match = /^\nesign-backup-sha256 ([0-9a-f]{64})\n$/.exec(tail.toString('latin1'));
    if (!match) throw refuse();
    return { tarBytes: info.size - TRAILER_LENGTH, sha256: match[1] };
  } finally {
    await handle.close();
  }
}

/** Where each part of an archive goes under DATA_DIR; null for a name an archive of ours never holds. */
function destinationOf(name: string): string | null {
  if (name === DATABASE_PART) return 'esign.sqlite';
  const m = FILE_PART.exec(name);
  if (m && m[3].startsWith(m[1] + m[2])) return join('files', m[1], m[2], m[3]);
  return null;
}

/**
 * Reads the tar part of an archive entry by entry: each part is hashed (and written under `into`, when given, as it
 * is read) and the manifest parsed. Answers the manifest and what was read of every part.
 */
async function readArchive(
  file: string,
  tarBytes: number,
  into: string | null,
): Promise<{ manifest: unknown; seen: Map<string, { size: number; sha256: string }> }> {
  const seen = new Map<string, { size: number; sha256: string }>();
  let manifest: unknown = null;
  const reader = extract();
  const mismatch = (detail: string) => new BackupError(fill(BackupMessages.manifestMismatch, { detail, file }));
  reader.on('entry', (header, stream, next) => {
    void (async () => {
      if (header.type !== 'file' || seen.has(header.name) || (header.name !== MANIFEST && !destinationOf(header.name)))
        throw mismatch(`an unexpected entry ${JSON.stringify(header.name.slice(0, 100))}`);
      if (header.name === MANIFEST) {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks);
        seen.set(MANIFEST, { size: text.length, sha256: createHash('sha256').update(text).digest('hex') });
        try {
          manifest = JSON.parse(text.toString('utf8'));
        } catch {
          throw mismatch('its manifest is not JSON');
        }
        return;
      }
      let sha256 = '';
      let size = 0;
      const hash = checked(
        null,
        (hex) => (sha256 = hex),
        () => new Error('unreachable'),
      );
      hash.on('data', (chunk: Buffer) => (size += chunk.length));
      if (into) {
        const dest = join(into, destinationOf(header.name)!);
        await mkdir(dirname(dest), { recursive: true });
        await pipeline(stream, hash, createWriteStream(dest, { mode: 0o640, flags: 'wx' }));
      } else {
        await pipeline(stream, hash, new PassThrough().resume());
      }
      seen.set(header.name, { size, sha256 });
    })().then(
      () => next(),
      (err: unknown) => reader.destroy(err as Error),
    );
  });
  await pipeline(createReadStream(file, { start: 0, end: tarBytes - 1 }), reader);
  return { manifest, seen };
}

/** Checks the manifest against what was read: the same parts, sizes and SHA-256s, nothing more, nothing less. */
function checkManifest(
  file: string,
  manifest: unknown,
  seen: Map<string, { size: number; sha256: string }>,
): BackupManifest {
  const mismatch = (detail: string) => new BackupError(fill(BackupMessages.manifestMismatch, { detail, file }));
  const m = manifest as Partial<BackupManifest> | null;
  if (!m || m.format !== BACKUP_FORMAT || m.version !== BACKUP_VERSION || !Array.isArray(m.parts))
    throw mismatch('no manifest of an e-Sign backup');
  const listed = new Set<string>();
  for (const part of m.parts) {
    const got = seen.get(part.path);
    if (!got) throw mismatch(`${part.path} is missing`);
    if (got.size !== part.size || got.sha256 !== part.sha256) throw mismatch(`${part.path} does not match its SHA-256`);
    listed.add(part.path);
  }
  for (const name of seen.keys())
    if (name !== MANIFEST && !listed.has(name)) throw mismatch(`${name} is not in the manifest`);
  return m as BackupManifest;
}

/** Checks a whole archive (trailer checksum, every part against the manifest) without writing anything. */
export async function verifyBackup(file: string): Promise<BackupManifest> {
  const { tarBytes, sha256 } = await trailerOf(file);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { start: 0, end: tarBytes - 1 })) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== sha256) throw new BackupError(fill(BackupMessages.checksumMismatch, { file }));
  const { manifest, seen } = await readArchive(file, tarBytes, null);
  return checkManifest(file, manifest, seen);
}

/**
 * Restores an archive into the configured DATA_DIR, which must not exist or be empty: the whole archive is checked
 * first (nothing is written when it does not match), then its parts are written, checked again as they are, into a
 * temporary folder beside DATA_DIR that is renamed into place.
 */
export async function restoreBackup(
  config: Pick<AppConfig, 'database' | 'storage' | 'dataDir'>,
  file: string,
): Promise<{ manifest: BackupManifest; documents: number }> {
  const dir = config.dataDir;
  const existing = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  if (existing.length) throw new BackupError(fill(BackupMessages.notFresh, { dir }));
  const manifest = await verifyBackup(file);
  const hasDatabase = manifest.parts.some((p) => p.path === DATABASE_PART);
  const engine = config.database.engine;
  if (hasDatabase !== (engine === 'sqlite'))
    throw new BackupError(
      fill(BackupMessages.wrongEngine, {
        archive: hasDatabase ? 'SQLite' : 'MariaDB/MySQL (not in the archive)',
        configured: engine === 'sqlite' ? 'SQLite' : 'MariaDB/MySQL (DATABASE_URL)',
        hint: hasDatabase
          ? 'Unset DATABASE_URL to restore it.'
          : 'Set DATABASE_URL to the database restored from your dump, then restore this archive for its documents.',
      }),
    );
  await mkdir(dirname(dir), { recursive: true });
  const temp = join(dirname(dir), `.${basename(dir)}.restoring-${randomBytes(4).toString('hex')}`);
  await mkdir(temp, { mode: 0o750 });
  try {
    const { tarBytes } = await trailerOf(file);
    const { manifest: again, seen } = await readArchive(file, tarBytes, temp);
    // The same checks on what was written (the file could have changed since it was verified).
    checkManifest(file, again, seen);
    if (existing.length === 0) await rmdir(dir).catch(() => undefined);
    await rename(temp, dir);
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
  return { manifest, documents: manifest.parts.filter((p) => p.path.startsWith('files/')).length };
}

/** The archive's name for a scheduled backup taken at `now`: esign-backup-20261122T090000Z.tar. */
export function scheduledName(now: Date): string {
  return `esign-backup-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}.tar`;
}

export const SCHEDULED_NAME = /^esign-backup-\d{8}T\d{6}Z\.tar$/;
