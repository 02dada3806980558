import { createHash, type Hash } from 'node:crypto';
import {
  isDict,
  nameOf,
  numberOf,
  objectKindByEntries,
  PdfName,
  PdfRef,
  PdfString,
  readCrossReference,
  readObjectHeader,
  readStartxref,
  startsWithAt,
  streamByEntries,
  type ObjectStreamCache,
  type PdfDict,
  type PdfValue,
  type XrefEntries,
} from '@esign/pdf-syntax';
import { PdfStreamValue } from '@esign/pdf-syntax';
import type { FontKey } from '../fonts';
import type { PageShown } from '../page-content';

/*
 * A document as the signing engine reads it for a series of revisions (issue 23): its bytes, the SHA-256 of those
 * bytes so far (kept as a running hash: each revision hashes only what it appends), and the little of its structure
 * a revision needs — the cross-reference data, the trailer, the catalog and the page tree — read once, with
 * @esign/pdf-syntax, when first needed. An object is read when a revision asks for it; the objects the revisions of
 * this job wrote are kept as written, so the next revision never reads them back.
 */

/** The bytes one document version was read from: shared by the versions a job appends to it. */
interface Base {
  buf: Buffer;
  entries: XrefEntries;
  streams: ObjectStreamCache;
  /** Objects of `buf` read so far (never changed: a revision edits copies). */
  values: Map<number, PdfValue | undefined>;
  /** Which of those are streams (their dictionary is in `values`). */
  streamNums: Set<number>;
  /**
   * How each page of `buf` shows (its boxes and rotation, own or inherited), by object number: a revision changes a
   * page's content, resources and annotations, never these, so every version made from `buf` shows them alike.
   */
  shown: Map<number, PageShown>;
}

/** What the newest trailer says, and where the newest cross-reference section is. */
export interface TrailerState {
  size: number;
  root: PdfRef;
  info?: PdfValue;
  id?: PdfValue;
  /** The file's last startxref: the next update's /Prev. */
  prev: number;
  /** The last section is a cross-reference stream (the next one will be too). */
  xrefStream: boolean;
}

/** The structure of one version: what a revision reads and how it was changed by this job's revisions. */
export interface Structure {
  base: Base;
  /** The objects this job's revisions wrote after `base`, newest version of each (a signature dictionary as read back). */
  written: Map<number, PdfValue | PdfStreamValue>;
  trailer: TrailerState;
  /** The pages in order. */
  pages: PdfRef[];
  /** The shared font subsets (shared-fonts.ts) this job put in the document, by font. */
  fonts: Map<FontKey, PdfRef>;
}

/** Why the document cannot be extended by appending to it (the engine then rewrites it, or refuses when signed). */
export class NotAppendableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotAppendableError';
  }
}

const MAX_PAGE_TREE_DEPTH = 64;

/**
 * One version of a document: its bytes, its SHA-256 (`key`, the storage key), and (read once, on first need) its
 * structure. Versions made by appending a revision carry their structure forward instead of reading it again.
 */
export class SigningDocument {
  private structureRead: Structure | null;
  /** The bytes as the pieces they were made of (the stored file, then each revision's update), until asked whole. */
  private pieces: readonly Buffer[];
  readonly key: string;
  /** The number of bytes. */
  readonly length: number;

  private constructor(
    pieces: readonly Buffer[],
    /** SHA-256 over the bytes, not yet digested: copied to hash what a revision appends. */
    private readonly hash: Hash,
    structure: Structure | null,
    /**
     * The version this one was appended to (its key and length): these bytes start with it. A store that holds it
     * already copies it and writes only the rest (the seal job stores each version before it appends the next).
     */
    readonly previous: { key: string; length: number } | null = null,
  ) {
    this.pieces = pieces;
    this.length = pieces.reduce((n, piece) => n + piece.length, 0);
    this.structureRead = structure;
    this.key = hash.copy().digest('hex');
  }

  /** A document as stored; `hash` when the caller hashed the bytes already (storage's read check). */
  static of(bytes: Uint8Array, hash?: Hash): SigningDocument {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return new SigningDocument([buf], hash ?? createHash('sha256').update(buf), null);
  }

  /**
   * The version after appending `update` (whose SHA-256 continues from this one's), with its structure as given. The
   * bytes are not copied into one buffer (a 352-page book is 3 MB, seven versions a seal): `parts` are stored as they
   * are, and `bytes` joins them only when asked.
   */
  appended(update: Buffer, structure: Structure | null): SigningDocument {
    const hash = this.hash.copy().update(update);
    return new SigningDocument([...this.pieces, update], hash, structure, { key: this.key, length: this.length });
  }

  /** The bytes as one buffer (joined on first use). */
  get bytes(): Buffer {
    if (this.pieces.length !== 1) this.pieces = [Buffer.concat(this.pieces as Buffer[], this.length)];
    return this.pieces[0];
  }

  /** The bytes in order, as the pieces they are (for writing them out without joining them). */
  get parts(): readonly Buffer[] {
    return this.pieces;
  }

  /** The last byte (whether the file ends with a line break decides how an update starts). */
  get lastByte(): number | undefined {
    const last = this.pieces[this.pieces.length - 1];
    return last?.[last.length - 1];
  }

  /** SHA-256 of these bytes followed by `parts` (what a revision appends), as bytes. */
  digestWith(...parts: Uint8Array[]): Buffer {
    const hash = this.hash.copy();
    for (const part of parts) hash.update(part);
    return hash.digest();
  }

  /** The structure, read on first use. Throws NotAppendableError when an update cannot be appended to these bytes. */
  structure(): Structure {
    this.structureRead ??= readStructure(this.bytes);
    return this.structureRead;
  }

  /** Whether the structure was read already (a job carries it from one revision to the next). */
  get structureKnown(): boolean {
    return this.structureRead !== null;
  }
}

function readStructure(buf: Buffer): Structure {
  const xref = readCrossReference(buf);
  if (xref.problems.length)
    throw new NotAppendableError(`its cross-reference data does not read (${xref.problems[0]})`);
  if (xref.trailers.some((t) => t.has('Encrypt'))) throw new NotAppendableError('it is encrypted');
  const prev = readStartxref(buf);
  if (typeof prev !== 'number') throw new NotAppendableError(prev);
  // The update's /Prev is this offset: a reader that takes offsets to the byte must find the section there.
  if (!startsWithAt(buf, prev, 'xref') && readObjectHeader(buf, prev) === undefined)
    throw new NotAppendableError('its startxref is not where its cross-reference section starts');
  const find = (key: string) => xref.trailers.map((t) => t.get(key)).find((v) => v !== undefined);
  const root = find('Root');
  if (!(root instanceof PdfRef)) throw new NotAppendableError('its trailer names no catalog');
  let size = 0;
  for (const num of xref.entries.keys()) size = Math.max(size, num + 1);
  for (const trailer of xref.trailers) size = Math.max(size, numberOf(trailer.get('Size')) ?? 0);
  const info = find('Info');
  const id = find('ID');
  const base: Base = {
    buf,
    entries: xref.entries,
    streams: new Map(),
    values: new Map(),
    streamNums: new Set(),
    shown: new Map(),
  };
  const structure: Structure = {
    base,
    written: new Map(),
    trailer: {
      size,
      root,
      info: info instanceof PdfRef ? info : undefined,
      id: Array.isArray(id) && id.length === 2 && id.every((p) => p instanceof PdfString) ? id : undefined,
      prev,
      xrefStream: nameOf(xref.trailers[0].get('Type')) === 'XRef',
    },
    pages: [],
    fonts: new Map(),
  };
  const catalog = objectOf(structure, root.num);
  if (!isDict(catalog)) throw new NotAppendableError('its catalog is not a dictionary');
  structure.pages = pageRefs(structure, catalog.get('Pages'));
  if (!structure.pages.length) throw new NotAppendableError('it has no pages');
  return structure;
}

/** The pages under the tree's root, in order (a node met twice, or a tree deeper than 64, is refused). */
function pageRefs(structure: Structure, root: PdfValue | undefined): PdfRef[] {
  const pages: PdfRef[] = [];
  const seen = new Set<number>();
  const walk = (ref: PdfValue | undefined, depth: number) => {
    if (!(ref instanceof PdfRef) || depth > MAX_PAGE_TREE_DEPTH || seen.has(ref.num))
      throw new NotAppendableError('its page tree is damaged');
    seen.add(ref.num);
    const node = objectOf(structure, ref.num);
    if (!isDict(node)) throw new NotAppendableError('its page tree is damaged');
    if (nameOf(node.get('Type')) === 'Pages' || (node.has('Kids') && nameOf(node.get('Type')) !== 'Page')) {
      const kids = resolved(structure, node.get('Kids'));
      if (!Array.isArray(kids)) throw new NotAppendableError('its page tree is damaged');
      for (const kid of kids) walk(kid, depth + 1);
    } else pages.push(ref);
  };
  walk(root, 0);
  return pages;
}

/** The newest version of object `num` (a stream's dictionary for a stream); undefined when there is none. */
export function objectOf(structure: Structure, num: number): PdfValue | undefined {
  const written = structure.written.get(num);
  if (written !== undefined) {
    return written instanceof PdfStreamValue ? written.dict : written;
  }
  const { base } = structure;
  if (base.values.has(num)) return base.values.get(num);
  const { value, stream } = objectKindByEntries(base.buf, base.entries, num, undefined, base.streams);
  base.values.set(num, value);
  if (stream) base.streamNums.add(num);
  return value;
}

/** Whether the newest version of object `num` is a stream (known from reading it: its data is not looked for). */
export function isStreamObject(structure: Structure, num: number): boolean {
  const written = structure.written.get(num);
  if (written !== undefined) return written instanceof PdfStreamValue;
  objectOf(structure, num);
  return structure.base.streamNums.has(num);
}

/** A stream object's dictionary and data (as stored); undefined when `num` is not a stream. */
export function streamOf(structure: Structure, num: number): { dict: PdfDict; data: Buffer } | undefined {
  const written = structure.written.get(num);
  if (written instanceof PdfStreamValue) return { dict: written.dict, data: written.data };
  if (written !== undefined) return undefined;
  return streamByEntries(structure.base.buf, structure.base.entries, num);
}

/** A value with references followed (a few levels). */
export function resolved(structure: Structure, value: PdfValue | undefined): PdfValue | undefined {
  let current = value;
  for (let i = 0; current instanceof PdfRef && i < 16; i++) current = objectOf(structure, current.num);
  return current instanceof PdfRef ? undefined : current;
}

/** A dictionary entry, followed when it is a reference. */
export function entryOf(structure: Structure, dict: PdfDict, key: string): PdfValue | undefined {
  return resolved(structure, dict.get(key));
}

/** A page attribute, its own or inherited from the page tree (ISO 32000-1, 7.7.3.4). */
export function inheritedOf(structure: Structure, page: PdfDict, key: string): PdfValue | undefined {
  let node: PdfValue | undefined = page;
  for (let depth = 0; isDict(node) && depth < MAX_PAGE_TREE_DEPTH; depth++) {
    const value = entryOf(structure, node, key);
    if (value !== undefined) return value;
    node = entryOf(structure, node, 'Parent');
  }
  return undefined;
}

export const isName = (value: PdfValue | undefined, name: string): boolean =>
  value instanceof PdfName && value.name === name;
