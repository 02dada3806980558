import {
  endsToken,
  isWhitespace,
  nameOf,
  numberOf,
  PdfLexer,
  startsWithAt,
  SyntaxProblem,
  type PdfDict,
  type PdfValue,
} from './lexer';
import { decodeStream, streamBounds, type InflateBudget } from './streams';

/**
 * The cross-reference data as a reader that trusts it sees it (ISO 32000-1, 7.5): `startxref`, the chain of
 * cross-reference tables or streams through /Prev (and /XRefStm of hybrid files), merged newest first.
 */

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
/** Bound on the bytes all cross-reference streams of one file may inflate to (a real 85,000-entry one: 0.4 MB). */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** How far before `/Type /XRef` the `N G obj` of its stream may be. */
export const XREF_DICT_LOOKBACK = 4096;
/** Bounds on the scan for trailer dictionaries, so crafted input cannot make it quadratic. */
const MAX_SCANNED_DICTS = 1000;
export const MAX_DICT_BYTES = 16_384;

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

/**
 * How far before the end of the file (trailing whitespace aside) readers look for `startxref` (pdf.js, qpdf and
 * @libpdf/core alike: 1 KiB). One further up belongs to an earlier revision: reading from it would read that
 * revision, where those readers rebuild the file from its newest objects.
 */
const STARTXREF_WINDOW = 1024;

/**
 * The offset after the last `startxref` near the end of the file (where the newest cross-reference section is: what
 * an incremental update names as /Prev), or what is wrong.
 */
export function readStartxref(buf: Buffer): number | string {
  const at = buf.lastIndexOf('startxref');
  if (at < 0) return 'no startxref';
  let end = buf.length;
  while (end > 0 && isWhitespace(buf[end - 1])) end--;
  if (at < end - STARTXREF_WINDOW) return `no startxref at the end of the file (the last one is at byte ${at})`;
  const lexer = new PdfLexer(buf, at + 'startxref'.length);
  lexer.skipSpace();
  const offset = lexer.readUnsigned();
  return offset === undefined ? 'startxref has no offset' : offset;
}

function readChain(
  buf: Buffer,
  first: number,
  sections: XrefSection[],
  problems: string[],
  budget: InflateBudget,
): void {
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

function readSectionAt(buf: Buffer, offset: number, budget: InflateBudget, only?: 'stream'): XrefSection {
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

function readXrefStream(buf: Buffer, at: number, budget: InflateBudget): XrefSection {
  const header = readObjectHeader(buf, at);
  if (!header) throw new SyntaxProblem('no object header', at);
  const lexer = new PdfLexer(buf, header.end);
  const dict = lexer.readDict();
  if (nameOf(dict.get('Type')) !== 'XRef') throw new SyntaxProblem('not a cross-reference stream', at);
  const { start, end } = streamBounds(lexer, dict, { strict: true });
  // A stream inflating beyond the budget makes inflate throw (a RangeError): the section is unreadable.
  const data = decodeStream(buf.subarray(start, end), dict, budget, start);

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

/**
 * Where something `test` recognises starts at (or near) `offset`: at the offset after whitespace, else within
 * OFFSET_DRIFT bytes either side (at a token boundary). -1 when not found.
 */
export function locate(buf: Buffer, offset: number, test: (pos: number) => boolean): number {
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
export function readObjectHeader(buf: Buffer, pos: number): { num: number; gen: number; end: number } | undefined {
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

export function isObjectHeader(buf: Buffer, pos: number, num: number, gen: number): boolean {
  const header = readObjectHeader(buf, pos);
  return header !== undefined && header.num === num && header.gen === gen;
}

/**
 * Every trailer dictionary (after a `trailer` keyword) and cross-reference stream dictionary in the file, in file
 * order, found by scanning the bytes rather than following `startxref`: what a reader that rebuilds a damaged file
 * would find.
 */
export function scanTrailerDictionaries(buf: Buffer): PdfDict[] {
  const found: { at: number; dict: PdfDict }[] = [];
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
    if (dict) found.push({ at, dict });
  }
  for (let at = buf.indexOf('/XRef'); at >= 0 && candidates < MAX_SCANNED_DICTS; at = buf.indexOf('/XRef', at + 5)) {
    if (!endsToken(buf[at + 5])) continue; // /XRefStm
    const windowStart = Math.max(0, at - XREF_DICT_LOOKBACK);
    const inWindow = buf.subarray(windowStart, at).lastIndexOf('obj');
    const obj = inWindow < 0 ? -1 : windowStart + inWindow;
    if (obj < 0 || startsWithAt(buf, obj - 3, 'end')) continue;
    candidates++;
    const dict = dictAt(obj + 3);
    if (dict && nameOf(dict.get('Type')) === 'XRef') found.push({ at, dict });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.dict);
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
