import { constants as zlibConstants, inflateSync } from 'node:zlib';
import {
  endsToken,
  isDict,
  isWhitespace,
  nameOf,
  numberOf,
  PdfLexer,
  PdfRef,
  startsWithAt,
  SyntaxProblem,
  type PdfDict,
  type PdfValue,
} from './syntax';

/**
 * The file structure as a reader that trusts the cross-reference data sees it (ISO 32000-1, 7.5): `startxref`, the
 * chain of cross-reference tables or streams through /Prev (and /XRefStm), the trailer, and whether every object is
 * where that data says. pdf-lib does not use this data (it reads the file from the top), so a file it parses can still
 * be one other readers (and signature validators, which compute byte ranges from it) read wrongly.
 */
export interface StructureReport {
  /** What makes the cross-reference data unusable as written. Empty: the file reads as written. */
  problems: string[];
  /** Irregularities readers accept (an in-use entry at offset 0 reads as a null object; /Size too large). */
  warnings: string[];
  /** An /Encrypt entry in some trailer or cross-reference stream dictionary. */
  encrypted: boolean;
  /** Some trailer or cross-reference stream dictionary in the file names the /Root catalog. */
  trailerWithRoot: boolean;
  /** The object number of the /Root the cross-reference chain's trailer names. */
  root?: number;
  /** `/ByteRange` occurs in the file: it carries (or prepares) a signature dictionary. */
  byteRangeSeen: boolean;
  /** Cross-reference sections read through the chain. */
  sections: number;
  /** In-use objects the merged cross-reference data lists. */
  objects: number;
  /**
   * Why loading the file would decode too much (see checkLoadDecoding): pdf-lib inflates every object stream and
   * cross-reference stream when it loads a file, with no bound. Undefined: within bounds.
   */
  loadTooCostly?: string;
}

interface XrefSection {
  kind: 'table' | 'stream';
  entries: XrefEntries;
  trailer: PdfDict;
}

/**
 * How far from the recorded offset an object or `xref` keyword may start and still count as found. Readers skip
 * whitespace at an offset (qpdf warns "extraneous whitespace seen before xref" and goes on) and some tolerate a few
 * bytes of drift (a miscounted end-of-line); beyond that they give up and rebuild the table.
 */
const OFFSET_DRIFT = 8;
const MAX_WHITESPACE_SKIP = 256;
const MAX_SECTIONS = 1000;
const MAX_WARNINGS = 20;
/** How far before `/Type /XRef` the `N G obj` of its stream may be. */
const XREF_DICT_LOOKBACK = 4096;
/** Bounds on the scan for trailer dictionaries, so crafted input cannot make it quadratic. */
const MAX_SCANNED_DICTS = 1000;
const MAX_DICT_BYTES = 16_384;
/** Bound on the bytes all cross-reference streams of one file may inflate to (a real 85,000-entry one: 0.4 MB). */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** What decoding may still inflate, shared by every stream of one read. */
interface Budget {
  inflatable: number;
}

export type XrefEntry = { type: 1; offset: number; gen: number } | { type: 2; stream: number; index: number };
/** null: a free entry (it hides older entries of the same number). */
export type XrefEntries = Map<number, XrefEntry | null>;

export interface CrossReference {
  /** Every section's entries merged, the newest section winning. */
  entries: XrefEntries;
  /** The sections' trailer (or cross-reference stream) dictionaries, newest first. */
  trailers: PdfDict[];
  /** Why the chain could not be read to its end. */
  problems: string[];
}

/** Follows startxref and the /Prev chain (with /XRefStm of hybrid files) and merges the sections. */
export function readCrossReference(buf: Buffer): CrossReference {
  const problems: string[] = [];
  const sections: XrefSection[] = [];
  const startxref = readStartxref(buf);
  if (typeof startxref === 'string') problems.push(startxref);
  else readChain(buf, startxref, sections, problems, { inflatable: MAX_INFLATED_BYTES });

  const entries: XrefEntries = new Map();
  for (const section of sections) {
    for (const [num, entry] of section.entries) if (!entries.has(num)) entries.set(num, entry);
  }
  return { entries, trailers: sections.map((s) => s.trailer), problems };
}

export function analyseStructure(buf: Buffer): StructureReport {
  const warnings: string[] = [];
  const warn = (text: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(text);
  };
  const { entries: merged, trailers, problems } = readCrossReference(buf);
  const scanned = scanTrailerDictionaries(buf);
  const hasRoot = (d: PdfDict) => d.get('Root') instanceof PdfRef;

  let objects = 0;
  const root = trailers.find(hasRoot)?.get('Root') as PdfRef | undefined;
  if (trailers.length > 0) {
    const size = numberOf(trailers[0].get('Size'));
    const rootEntry = root ? merged.get(root.num) : undefined;
    if (!root) problems.push('the trailer has no /Root');
    else if (!rootEntry || (rootEntry.type === 1 && rootEntry.offset === 0))
      problems.push(`the catalog (object ${root.num}) is not in the cross-reference data`);
    if (size === undefined) problems.push('the trailer has no /Size');

    const misplaced: number[] = [];
    for (const [num, entry] of merged) {
      if (num === 0 || entry === null) continue;
      objects++;
      if (size !== undefined && num >= size) warn(`object ${num} is beyond /Size ${size}`);
      if (entry.type === 1) {
        if (entry.offset === 0) warn(`object ${num} has offset 0 (read as null)`);
        else if (locate(buf, entry.offset, (p) => isObjectHeader(buf, p, num, entry.gen)) < 0) misplaced.push(num);
      } else {
        const container = merged.get(entry.stream);
        if (!container || container.type !== 1) misplaced.push(num);
      }
    }
    if (misplaced.length > 0) {
      problems.push(
        `${misplaced.length} object(s) are not where the cross-reference data says (${misplaced.slice(0, 5).join(', ')}${misplaced.length > 5 ? ', …' : ''})`,
      );
    }
  }

  return {
    problems,
    warnings,
    encrypted: [...trailers, ...scanned].some((d) => d.has('Encrypt')),
    trailerWithRoot: [...trailers, ...scanned].some(hasRoot),
    root: root?.num,
    byteRangeSeen: buf.indexOf('/ByteRange') >= 0,
    sections: trailers.length,
    objects,
    loadTooCostly: checkLoadDecoding(buf),
  };
}

/**
 * What a parser that loads every object (pdf-lib) decodes up front may inflate to, all object and cross-reference
 * streams of one file together. The largest real one among the fixtures (linearized_with_object_streams.pdf, 947
 * streams) inflates to 6 MB and declares 84,010 objects in its object streams.
 */
const MAX_LOAD_INFLATED_BYTES = 32 * 1024 * 1024;
const MAX_OBJECT_STREAM_OBJECTS = 1_000_000;
const MAX_DECODED_STREAMS = 10_000;

/**
 * Every object stream (/Type /ObjStm) and cross-reference stream (/Type /XRef) in the file, found by scanning the bytes
 * as a loading parser meets them, inflated against one shared budget. A Flate bomb (a few MB inflating to a GB) there
 * makes pdf-lib allocate the whole result and spend tens of seconds on it, so it is refused before pdf-lib sees it.
 * Answers why the file is refused, or undefined.
 */
export function checkLoadDecoding(buf: Buffer): string | undefined {
  let budget = MAX_LOAD_INFLATED_BYTES;
  let objects = 0;
  let streams = 0;
  let endstreams: number[] | undefined;
  /** The first `endstream` at or after pos (all of them found in one pass, when first needed). */
  const endstreamFrom = (pos: number): number => {
    if (!endstreams) {
      endstreams = [];
      for (let at = buf.indexOf('endstream'); at >= 0; at = buf.indexOf('endstream', at + 9)) endstreams.push(at);
    }
    let lo = 0;
    let hi = endstreams.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (endstreams[mid] < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo < endstreams.length ? endstreams[lo] : -1;
  };

  for (const word of ['/ObjStm', '/XRef']) {
    for (let at = buf.indexOf(word); at >= 0; at = buf.indexOf(word, at + word.length)) {
      if (!endsToken(buf[at + word.length])) continue; // /XRefStm
      const windowStart = Math.max(0, at - XREF_DICT_LOOKBACK);
      const inWindow = buf.subarray(windowStart, at).lastIndexOf('obj');
      const obj = inWindow < 0 ? -1 : windowStart + inWindow;
      if (obj < 0 || startsWithAt(buf, obj - 3, 'end')) continue;
      // The dictionary, read from a bounded window so crafted input cannot make the scan quadratic.
      const lexer = new PdfLexer(buf.subarray(0, Math.min(buf.length, obj + 3 + MAX_DICT_BYTES)), obj + 3);
      let dict: PdfDict;
      try {
        dict = lexer.readDict();
      } catch {
        continue; // not a dictionary we can read: pdf-lib cannot read it as a stream either
      }
      const type = nameOf(dict.get('Type'));
      if (type !== word.slice(1)) continue;
      lexer.skipSpace();
      if (!lexer.matchKeyword('stream')) continue;
      if (++streams > MAX_DECODED_STREAMS) return `more than ${MAX_DECODED_STREAMS} object or cross-reference streams`;
      if (type === 'ObjStm') {
        objects += Math.max(0, numberOf(dict.get('N')) ?? 0);
        if (objects > MAX_OBJECT_STREAM_OBJECTS)
          return `object streams declare more than ${MAX_OBJECT_STREAM_OBJECTS} objects`;
      }
      let start = lexer.pos;
      if (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
      else if (buf[start] === 0x0a || buf[start] === 0x0d) start += 1;
      const length = numberOf(dict.get('Length'));
      // pdf-lib reads /Length when it is a number that fits, else up to the next `endstream`.
      let end =
        length !== undefined && Number.isInteger(length) && length >= 0 && start + length <= buf.length
          ? start + length
          : endstreamFrom(start);
      if (end < start) end = buf.length;
      const data = buf.subarray(start, end);
      const filters = listOf(dict.get('Filter')).map(nameOf);
      if (filters.length === 0) {
        budget -= data.length;
      } else if (filters.length === 1 && filters[0] === 'FlateDecode') {
        try {
          budget -= inflateSync(data, {
            finishFlush: zlibConstants.Z_SYNC_FLUSH,
            maxOutputLength: Math.max(1, budget),
          }).length;
        } catch (e) {
          // Beyond the budget (ERR_BUFFER_TOO_LARGE, a RangeError of the realm zlib runs in: compared by code).
          if ((e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
            return 'object or cross-reference streams inflate beyond the bound';
          // Corrupt Flate data (or bytes inside another stream that only look like one: giraffe.pdf has nine). What
          // comes before the damage fits the budget, or zlib would have said so first; and pdf-lib, told to throw on
          // an invalid object, stops loading at the first object stream it cannot decode.
          budget -= data.length;
        }
      } else {
        // LZW, RunLength and chains of filters expand without a bound this check could apply cheaply; real files
        // compress these streams with Flate alone.
        return `a ${type} stream with the filters ${filters.join(', ')}`;
      }
      if (budget < 0) return 'object or cross-reference streams inflate beyond the bound';
    }
  }
  return undefined;
}

/** The offset after the last `startxref`, or what is wrong. */
function readStartxref(buf: Buffer): number | string {
  const at = buf.lastIndexOf('startxref');
  if (at < 0) return 'no startxref';
  const lexer = new PdfLexer(buf, at + 'startxref'.length);
  lexer.skipSpace();
  const offset = lexer.readUnsigned();
  return offset === undefined ? 'startxref has no offset' : offset;
}

function readChain(buf: Buffer, first: number, sections: XrefSection[], problems: string[], budget: Budget): void {
  const visited = new Set<number>();
  let next: number | undefined = first;
  while (next !== undefined) {
    if (visited.has(next) || sections.length >= MAX_SECTIONS) {
      problems.push(`the cross-reference chain loops at byte ${next}`);
      return;
    }
    visited.add(next);
    let section: XrefSection;
    try {
      section = readSectionAt(buf, next, budget);
    } catch (e) {
      problems.push(`no readable cross-reference section at byte ${next} (${describe(e)})`);
      return;
    }
    const hybrid = section.kind === 'table' ? numberOf(section.trailer.get('XRefStm')) : undefined;
    if (hybrid !== undefined) {
      try {
        const stream = readSectionAt(buf, hybrid, budget, 'stream');
        // In a hybrid file the table lists the old-style objects; the stream adds those in object streams.
        for (const [num, entry] of stream.entries) if (!section.entries.get(num)) section.entries.set(num, entry);
      } catch (e) {
        problems.push(`no readable /XRefStm stream at byte ${hybrid} (${describe(e)})`);
      }
    }
    sections.push(section);
    next = numberOf(section.trailer.get('Prev'));
  }
}

function readSectionAt(buf: Buffer, offset: number, budget: Budget, only?: 'stream'): XrefSection {
  const isTable = (p: number) => startsWithAt(buf, p, 'xref') && endsToken(buf[p + 4]);
  const at = locate(buf, offset, (p) => (!only && isTable(p)) || readObjectHeader(buf, p) !== undefined);
  if (at < 0) throw new SyntaxProblem(only ? 'no stream object' : 'no xref keyword or stream object', offset);
  return !only && isTable(at) ? readTable(buf, at) : readXrefStream(buf, at, budget);
}

function readTable(buf: Buffer, at: number): XrefSection {
  const lexer = new PdfLexer(buf, at + 4);
  const entries: XrefEntries = new Map();
  for (;;) {
    lexer.skipSpace();
    if (lexer.matchKeyword('trailer')) break;
    const start = lexer.readUnsigned();
    lexer.skipSpace();
    const count = lexer.readUnsigned();
    if (start === undefined || count === undefined) throw new SyntaxProblem('malformed xref subsection', lexer.pos);
    if (count * 18 > buf.length - lexer.pos) throw new SyntaxProblem('xref subsection longer than the file', lexer.pos);
    for (let i = 0; i < count; i++) {
      lexer.skipSpace();
      const offset = lexer.readUnsigned();
      lexer.skipSpace();
      const gen = lexer.readUnsigned();
      lexer.skipSpace();
      const kind = lexer.peek();
      if (
        offset === undefined ||
        gen === undefined ||
        (kind !== 0x6e && kind !== 0x66) ||
        !endsToken(buf[lexer.pos + 1])
      )
        throw new SyntaxProblem('malformed xref entry', lexer.pos);
      lexer.pos++;
      if (!entries.has(start + i)) entries.set(start + i, kind === 0x6e /* n */ ? { type: 1, offset, gen } : null);
    }
  }
  return { kind: 'table', entries, trailer: lexer.readDict() };
}

function readXrefStream(buf: Buffer, at: number, budget: Budget): XrefSection {
  const header = readObjectHeader(buf, at);
  if (!header) throw new SyntaxProblem('no object header', at);
  const lexer = new PdfLexer(buf, header.end);
  const dict = lexer.readDict();
  if (nameOf(dict.get('Type')) !== 'XRef') throw new SyntaxProblem('not a cross-reference stream', at);
  const data = decodeStream(buf, lexer, dict, budget);

  const widths = dict.get('W');
  const size = numberOf(dict.get('Size'));
  const index = dict.get('Index') ?? (size === undefined ? undefined : [0, size]);
  if (!Array.isArray(widths) || widths.length !== 3 || !widths.every((w) => isCount(w) && w <= 8))
    throw new SyntaxProblem('bad /W', at);
  if (!Array.isArray(index) || index.length % 2 !== 0 || !index.every(isCount))
    throw new SyntaxProblem('bad /Index or /Size', at);
  const [w0, w1, w2] = widths as number[];
  const rowBytes = w0 + w1 + w2;
  const field = (pos: number, width: number) => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + data[pos + i];
    return value;
  };

  const entries: XrefEntries = new Map();
  let row = 0;
  for (let k = 0; k < index.length; k += 2) {
    const start = index[k] as number;
    const count = index[k + 1] as number;
    for (let i = 0; i < count; i++, row++) {
      const pos = row * rowBytes;
      if (pos + rowBytes > data.length) throw new SyntaxProblem('cross-reference stream shorter than /Index', at);
      const type = w0 === 0 ? 1 : field(pos, w0);
      const f2 = field(pos + w0, w1);
      const f3 = field(pos + w0 + w1, w2);
      const num = start + i;
      if (entries.has(num)) continue;
      if (type === 0) entries.set(num, null);
      else if (type === 1) entries.set(num, { type: 1, offset: f2, gen: f3 });
      else if (type === 2) entries.set(num, { type: 2, stream: f2, index: f3 });
      // Other types are reserved: references to them read as null.
    }
  }
  return { kind: 'stream', entries, trailer: dict };
}

const isCount = (v: PdfValue): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The decoded data of the stream whose dictionary the lexer just read. */
function decodeStream(buf: Buffer, lexer: PdfLexer, dict: PdfDict, budget: Budget): Buffer {
  lexer.skipSpace();
  if (!lexer.matchKeyword('stream')) throw new SyntaxProblem('no stream keyword', lexer.pos);
  let start = lexer.pos;
  if (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
  else if (buf[start] === 0x0a || buf[start] === 0x0d) start += 1;
  const length = numberOf(dict.get('Length'));
  let end =
    length !== undefined && Number.isInteger(length) && length >= 0 ? start + length : buf.indexOf('endstream', start);
  if (end < start || end > buf.length) throw new SyntaxProblem('stream runs past the end of the file', start);
  if (length === undefined) while (end > start && isWhitespace(buf[end - 1])) end--;
  let data = buf.subarray(start, end);

  const filters = listOf(dict.get('Filter'));
  if (filters.length > 1 || (filters.length === 1 && nameOf(filters[0]) !== 'FlateDecode'))
    throw new SyntaxProblem('unsupported cross-reference stream filter', start);
  if (filters.length === 1) {
    // A stream inflating beyond the budget makes inflateSync throw (a RangeError): the section is unreadable.
    data = inflateSync(data, {
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
      maxOutputLength: Math.max(1, budget.inflatable),
    });
    budget.inflatable -= data.length;
  }

  const parms = listOf(dict.get('DecodeParms'))[0];
  if (isDict(parms)) {
    const predictor = numberOf(parms.get('Predictor')) ?? 1;
    const colors = numberOf(parms.get('Colors')) ?? 1;
    const bits = numberOf(parms.get('BitsPerComponent')) ?? 8;
    const columns = numberOf(parms.get('Columns')) ?? 1;
    if (predictor >= 10) {
      if (bits !== 8) throw new SyntaxProblem('unsupported predictor bit depth', start);
      data = unpredictPng(data, colors * columns, colors);
    } else if (predictor !== 1) {
      throw new SyntaxProblem(`unsupported predictor ${predictor}`, start);
    }
  }
  return data;
}

const listOf = (value: PdfValue | undefined): PdfValue[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];

/** Undoes PNG row filters (ISO 32000-1, 7.4.4.4): each row is a filter-type byte and `rowLength` bytes. */
function unpredictPng(data: Buffer, rowLength: number, bpp: number): Buffer {
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = Buffer.alloc(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i];
      const left = i >= bpp ? out[dst + i - bpp] : 0;
      const up = r > 0 ? out[dst - rowLength + i] : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp] : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new SyntaxProblem(`unknown PNG predictor ${filter}`, src);
      }
      out[dst + i] = value & 0xff;
    }
  }
  return out;
}

/**
 * Where something `test` recognises starts at (or near) `offset`: at the offset after whitespace, else within
 * OFFSET_DRIFT bytes either side (at a token boundary). -1 when not found.
 */
function locate(buf: Buffer, offset: number, test: (pos: number) => boolean): number {
  if (offset < 0 || offset >= buf.length) return -1;
  let p = offset;
  while (p < buf.length && p - offset < MAX_WHITESPACE_SKIP && isWhitespace(buf[p])) p++;
  if (test(p)) return p;
  for (let d = 1; d <= OFFSET_DRIFT; d++) {
    for (const q of [offset - d, offset + d]) {
      if (q >= 0 && q < buf.length && (q === 0 || endsToken(buf[q - 1])) && test(q)) return q;
    }
  }
  return -1;
}

/** `num gen obj` at pos: the numbers and the position after `obj`. */
function readObjectHeader(buf: Buffer, pos: number): { num: number; gen: number; end: number } | undefined {
  const lexer = new PdfLexer(buf, pos);
  const num = lexer.readUnsigned();
  if (num === undefined || !isWhitespace(buf[lexer.pos] ?? 0x41)) return undefined;
  lexer.skipSpace();
  const gen = lexer.readUnsigned();
  if (gen === undefined) return undefined;
  lexer.skipSpace();
  if (!lexer.matchKeyword('obj')) return undefined;
  return { num, gen, end: lexer.pos };
}

function isObjectHeader(buf: Buffer, pos: number, num: number, gen: number): boolean {
  const header = readObjectHeader(buf, pos);
  return header !== undefined && header.num === num && header.gen === gen;
}

/**
 * Every trailer dictionary (after a `trailer` keyword) and cross-reference stream dictionary in the file, found by
 * scanning the bytes rather than following `startxref`: what a reader that rebuilds a damaged file would find.
 */
function scanTrailerDictionaries(buf: Buffer): PdfDict[] {
  const found: PdfDict[] = [];
  let candidates = 0;
  /** The dictionary starting at pos, read from a bounded window of the file; undefined when there is none. */
  const dictAt = (pos: number): PdfDict | undefined => {
    try {
      return new PdfLexer(buf.subarray(0, Math.min(buf.length, pos + MAX_DICT_BYTES)), pos).readDict();
    } catch {
      return undefined; // not a dictionary we can read (the word inside a stream, or a damaged one)
    }
  };
  for (
    let at = buf.indexOf('trailer');
    at >= 0 && candidates < MAX_SCANNED_DICTS;
    at = buf.indexOf('trailer', at + 7)
  ) {
    if (!endsToken(buf[at + 7]) || (at > 0 && !endsToken(buf[at - 1]))) continue;
    candidates++;
    const dict = dictAt(at + 7);
    if (dict) found.push(dict);
  }
  for (let at = buf.indexOf('/XRef'); at >= 0 && candidates < MAX_SCANNED_DICTS; at = buf.indexOf('/XRef', at + 5)) {
    if (!endsToken(buf[at + 5])) continue; // /XRefStm
    const windowStart = Math.max(0, at - XREF_DICT_LOOKBACK);
    const inWindow = buf.subarray(windowStart, at).lastIndexOf('obj');
    const obj = inWindow < 0 ? -1 : windowStart + inWindow;
    if (obj < 0 || startsWithAt(buf, obj - 3, 'end')) continue;
    candidates++;
    const dict = dictAt(obj + 3);
    if (dict && nameOf(dict.get('Type')) === 'XRef') found.push(dict);
  }
  return found;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
