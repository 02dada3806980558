import {
  endsToken,
  isDict,
  isDigit,
  isWhitespace,
  nameOf,
  numberOf,
  PdfLexer,
  PdfRef,
  startsWithAt,
  type PdfDict,
  type PdfValue,
} from './lexer';
import { decodeStream, streamBounds, unbounded, type InflateBudget, type StreamBounds } from './streams';
import { isObjectHeader, locate, readObjectHeader, type XrefEntries } from './xref';

/**
 * Indirect objects by number, found the way a reader that rebuilds a file finds them: every `N G obj` header in the
 * bytes (the newest definition of a number winning, as incremental updates redefine objects further down the file),
 * and the objects of the object streams (/Type /ObjStm) for numbers not written plainly. This does not trust the
 * cross-reference data (see xref.ts for that reading): the verifier reads every revision of a signed file this way,
 * and the upload check rebuilds a file whose cross-reference data is wrong from it.
 *
 * Headers are found in one pass over the bytes; values are parsed when asked for, and object streams are decoded the
 * first time a number is not found plainly.
 */

/** Where `N G obj` starts and the position after `obj`. */
export interface ObjectHeader {
  num: number;
  gen: number;
  offset: number;
  end: number;
}

export interface IndirectObject {
  num: number;
  gen: number;
  /** Where `N G obj` starts in the file; −1 for an object inside an object stream. */
  offset: number;
  /** The object stream holding a compressed object: its number and the object's index in it. */
  stream?: { num: number; index: number };
  /** The value (a stream's dictionary for a stream); undefined when the bytes there do not parse. */
  value: PdfValue | undefined;
  /** Where a stream object's data lies in the file (encoded). */
  data?: StreamBounds;
}

/** The objects an object stream holds: number, and where its text starts and ends in the decoded data. */
export interface ObjectStreamIndex {
  nums: number[];
  starts: number[];
  ends: number[];
}

/** An object stream, decoded, with its index. */
export interface ObjectStream extends ObjectStreamIndex {
  /** The stream object's number. */
  num: number;
  data: Buffer;
}

/** An object of an object stream, not yet parsed: its text is `source[start, end)`. */
export interface CompressedObject {
  num: number;
  stream: number;
  index: number;
  source: Buffer;
  start: number;
  end: number;
}

const MAX_NUMBER_DIGITS = 10;
const MAX_GEN_DIGITS = 5;
const MAX_REF_DEPTH = 32;
const MAX_LENGTH_DEPTH = 4;

/** Every `N G obj` header in buf[from, to), in file order. */
export function scanObjectHeaders(buf: Buffer, from = 0, to = buf.length): ObjectHeader[] {
  const found: ObjectHeader[] = [];
  for (let at = buf.indexOf('obj', from); at >= 0 && at < to; at = buf.indexOf('obj', at + 3)) {
    if (!endsToken(buf[at + 3])) continue;
    let p = at - 1;
    if (p < 0 || !isWhitespace(buf[p])) continue;
    while (p >= 0 && isWhitespace(buf[p])) p--;
    const genEnd = p + 1;
    while (p >= 0 && isDigit(buf[p])) p--;
    const genStart = p + 1;
    if (genStart === genEnd || genEnd - genStart > MAX_GEN_DIGITS || p < 0 || !isWhitespace(buf[p])) continue;
    while (p >= 0 && isWhitespace(buf[p])) p--;
    const numEnd = p + 1;
    while (p >= 0 && isDigit(buf[p])) p--;
    const numStart = p + 1;
    if (numStart === numEnd || numEnd - numStart > MAX_NUMBER_DIGITS) continue;
    if (numStart < from || (numStart > 0 && !endsToken(buf[numStart - 1]))) continue;
    found.push({
      num: Number(buf.toString('latin1', numStart, numEnd)),
      gen: Number(buf.toString('latin1', genStart, genEnd)),
      offset: numStart,
      end: at + 3,
    });
  }
  return found;
}

export class PdfObjects {
  /** Every header in file order. */
  readonly headers: ObjectHeader[];
  /** The newest plain definition of each number. */
  private readonly plain = new Map<number, ObjectHeader>();
  private readonly parsed = new Map<number, IndirectObject>();
  /** The object streams (newest definitions, file order) and, per compressed number, [stream, index] of the newest. */
  private streams: ObjectStream[] | null = null;
  private readonly compressedAt = new Map<number, number>();
  private readonly memberStream: number[] = [];
  private readonly memberIndex: number[] = [];
  private readonly resolving = new Set<number>();

  /**
   * `budget` bounds what decoding object streams may inflate, all together (unbounded unless given: the caller
   * that reads untrusted uploads bounds it, or checks the streams first).
   */
  constructor(
    readonly buf: Buffer,
    private readonly budget: InflateBudget = unbounded(),
  ) {
    this.headers = scanObjectHeaders(buf);
    for (const header of this.headers) this.plain.set(header.num, header);
  }

  /** Every object number defined plainly or in an object stream. */
  numbers(): number[] {
    this.objectStreams();
    return [...new Set([...this.plain.keys(), ...this.compressedAt.keys()])].sort((a, b) => a - b);
  }

  /** The newest plain definition's header of `num`. */
  header(num: number): ObjectHeader | undefined {
    return this.plain.get(num);
  }

  /** The newest definition of `num`: written plainly, else in an object stream; null when there is none. */
  get(num: number): IndirectObject | null {
    const header = this.plain.get(num);
    if (header) return this.at(header);
    const member = this.compressed(num);
    return member ? this.compressedObject(member) : null;
  }

  /** The object whose header this is (any definition, not only the newest), parsed once. */
  at(header: ObjectHeader): IndirectObject {
    let object = this.parsed.get(header.offset);
    if (!object) {
      object = this.parseAt(header);
      this.parsed.set(header.offset, object);
    }
    return object;
  }

  /** The newest header starting at or before `pos`: the object a position of the file is inside (or after). */
  headerBefore(pos: number): ObjectHeader | undefined {
    let lo = 0;
    let hi = this.headers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.headers[mid].offset <= pos) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? this.headers[lo - 1] : undefined;
  }

  /** Every object defined plainly in [from, to), the newest definition of each number in that range. */
  definedBetween(from: number, to: number): IndirectObject[] {
    const found = new Map<number, ObjectHeader>();
    for (const header of this.headers) if (header.offset >= from && header.offset < to) found.set(header.num, header);
    return [...found.values()].map((h) => this.at(h));
  }

  /** The definition of `num` before byte `before` (the version an update replaced), else its compressed one. */
  previous(num: number, before: number): IndirectObject | null {
    let last: ObjectHeader | undefined;
    for (const header of this.headers) {
      if (header.offset >= before) break;
      if (header.num === num) last = header;
    }
    if (last) return this.at(last);
    const member = this.compressed(num);
    return member ? this.compressedObject(member) : null;
  }

  /** A value with references followed (a few levels deep); undefined for a missing or unreadable object. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let depth = 0; current instanceof PdfRef && depth < MAX_REF_DEPTH; depth++)
      current = this.get(current.num)?.value;
    return current instanceof PdfRef ? undefined : current;
  }

  /** A stream object's data decoded (no filter, or FlateDecode); null when it is not a stream this can decode. */
  streamData(object: IndirectObject): Buffer | null {
    if (!object.data || !isDict(object.value)) return null;
    try {
      return decodeStream(this.buf.subarray(object.data.start, object.data.end), object.value, this.budget);
    } catch {
      return null;
    }
  }

  /**
   * Every object stream (/Type /ObjStm) among the newest plain definitions, in file order, decoded once. Numbers a
   * later stream holds too are the later stream's.
   */
  objectStreams(): ObjectStream[] {
    if (this.streams) return this.streams;
    const streams: ObjectStream[] = [];
    this.streams = streams; // a /Length read while decoding may ask for a compressed object: none yet
    const seen = new Set<number>();
    for (let at = this.buf.indexOf('/ObjStm'); at >= 0; at = this.buf.indexOf('/ObjStm', at + 7)) {
      if (!endsToken(this.buf[at + 7])) continue;
      const header = this.headerBefore(at);
      if (!header || seen.has(header.offset) || this.plain.get(header.num) !== header) continue;
      seen.add(header.offset);
      const stream = this.at(header);
      if (!isDict(stream.value) || nameOf(stream.value.get('Type')) !== 'ObjStm') continue;
      const data = this.streamData(stream);
      if (!data) continue;
      const index = objectStreamIndex(data, stream.value);
      const position = streams.push({ num: header.num, data, ...index }) - 1;
      for (let i = 0; i < index.nums.length; i++) {
        this.compressedAt.set(index.nums[i], this.memberStream.length);
        this.memberStream.push(position);
        this.memberIndex.push(i);
      }
    }
    return streams;
  }

  /** Where compressed object `num` is (the newest object stream holding it), not parsed; undefined when none does. */
  compressed(num: number): CompressedObject | undefined {
    const at = this.objectStreams() && this.compressedAt.get(num);
    return at === undefined ? undefined : this.memberOf(this.memberStream[at], this.memberIndex[at]);
  }

  /**
   * The compressed objects whose text matches `pattern` (a global search over each object stream's text, so nothing is
   * cut up first), each once; only the newest definition of a number counts.
   */
  searchObjectStreams(pattern: RegExp): CompressedObject[] {
    const found: CompressedObject[] = [];
    const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    this.objectStreams().forEach((stream, position) => {
      const text = stream.data.toString('latin1');
      let last = -1;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[0].length === 0) re.lastIndex++;
        // The member whose text holds the match: the last one starting at or before it.
        let lo = 0;
        let hi = stream.starts.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (stream.starts[mid] <= m.index) lo = mid + 1;
          else hi = mid;
        }
        const i = lo - 1;
        if (i < 0 || i === last || m.index >= stream.ends[i]) continue;
        last = i;
        const num = stream.nums[i];
        const at = this.compressedAt.get(num);
        if (at !== undefined && this.memberStream[at] === position && this.memberIndex[at] === i)
          found.push(this.memberOf(position, i));
      }
    });
    return found;
  }

  private memberOf(position: number, i: number): CompressedObject {
    const stream = (this.streams as ObjectStream[])[position];
    return {
      num: stream.nums[i],
      stream: stream.num,
      index: i,
      source: stream.data,
      start: stream.starts[i],
      end: stream.ends[i],
    };
  }

  /** An object of an object stream, parsed. */
  compressedObject(member: CompressedObject): IndirectObject {
    let value: PdfValue | undefined;
    try {
      value = new PdfLexer(member.source.subarray(0, member.end), member.start).readValue();
    } catch {
      value = undefined;
    }
    return { num: member.num, gen: 0, offset: -1, stream: { num: member.stream, index: member.index }, value };
  }

  private parseAt(header: ObjectHeader): IndirectObject {
    const object: IndirectObject = { num: header.num, gen: header.gen, offset: header.offset, value: undefined };
    const lexer = new PdfLexer(this.buf, header.end);
    try {
      object.value = lexer.readValue();
    } catch {
      return object;
    }
    if (isDict(object.value)) {
      const save = lexer.pos;
      lexer.skipSpace();
      if (lexer.matchKeyword('stream')) {
        lexer.pos = save;
        try {
          object.data = streamBounds(lexer, object.value, { length: (v) => this.lengthOf(v, header.num) });
        } catch {
          // `stream` without an `endstream`: a damaged stream, read as its dictionary alone.
        }
      }
    }
    return object;
  }

  /** A /Length value: a number, or an indirect number (never the stream's own object, nor in a loop). */
  private lengthOf(value: PdfValue | undefined, self: number): number | undefined {
    if (!(value instanceof PdfRef)) return numberOf(value);
    // A /Length naming a stream whose /Length names another stream…: a few levels at most (crafted input).
    if (value.num === self || this.resolving.has(value.num) || this.resolving.size >= MAX_LENGTH_DEPTH)
      return undefined;
    this.resolving.add(value.num);
    try {
      return numberOf(this.get(value.num)?.value);
    } finally {
      this.resolving.delete(value.num);
    }
  }
}

/**
 * The objects an object stream holds (ISO 32000-1, 7.5.7): `N` pairs of number and offset before `/First`, in order;
 * each object's text runs to the next one's offset. Stops at the first pair that is not two numbers.
 */
export function objectStreamIndex(data: Buffer, dict: PdfDict): ObjectStreamIndex {
  const index: ObjectStreamIndex = { nums: [], starts: [], ends: [] };
  const n = numberOf(dict.get('N'));
  const first = numberOf(dict.get('First'));
  if (n === undefined || first === undefined || !Number.isInteger(n) || n < 0) return index;
  if (!Number.isInteger(first) || first < 0 || first > data.length) return index;
  const offsets: number[] = [];
  let pos = 0;
  /** The next unsigned integer of the header (whitespace and comments before it), or -1. */
  const next = (): number => {
    while (pos < first && (isWhitespace(data[pos]) || data[pos] === 0x25)) {
      if (data[pos] === 0x25) while (pos < first && data[pos] !== 0x0a && data[pos] !== 0x0d) pos++;
      else pos++;
    }
    let value = 0;
    const start = pos;
    while (pos < first && isDigit(data[pos]) && pos - start < 15) value = value * 10 + data[pos++] - 0x30;
    return pos === start || (pos < first && !endsToken(data[pos])) ? -1 : value;
  };
  for (let i = 0; i < n; i++) {
    const num = next();
    const offset = num < 0 ? -1 : next();
    if (offset < 0) break;
    index.nums.push(num);
    offsets.push(offset);
  }
  for (let i = 0; i < offsets.length; i++) {
    const start = first + offsets[i];
    const end = i + 1 < offsets.length ? first + offsets[i + 1] : data.length;
    if (start > data.length) {
      index.nums.length = i;
      break;
    }
    index.starts.push(start);
    index.ends.push(Math.min(data.length, Math.max(start, end)));
  }
  return index;
}

/** Object streams decoded by objectByEntries, by number, for a caller that reads many objects of one file. */
export type ObjectStreamCache = Map<number, { data: Buffer; index: ObjectStreamIndex } | null>;

/** Object `num`'s `N G obj` where the cross-reference data says (within the drift readers tolerate), parsed. */
function plainByEntry(
  buf: Buffer,
  num: number,
  offset: number,
  gen: number,
): { value: PdfValue; lexer: PdfLexer } | undefined {
  const at = locate(buf, offset, (p) => isObjectHeader(buf, p, num, gen));
  const header = at < 0 ? undefined : readObjectHeader(buf, at);
  if (!header) return undefined;
  const lexer = new PdfLexer(buf, header.end);
  try {
    return { value: lexer.readValue(), lexer };
  } catch {
    return undefined;
  }
}

/**
 * Stream object `num` where the cross-reference data says it is: its dictionary and its data as stored (encoded);
 * undefined when it is not a plain stream object there.
 */
export function streamByEntries(
  buf: Buffer,
  entries: XrefEntries,
  num: number,
): { dict: PdfDict; data: Buffer } | undefined {
  const entry = entries.get(num);
  if (!entry || entry.type !== 1) return undefined;
  const found = plainByEntry(buf, num, entry.offset, entry.gen);
  if (!found || !isDict(found.value)) return undefined;
  try {
    const { start, end } = streamBounds(found.lexer, found.value);
    return { dict: found.value, data: buf.subarray(start, end) };
  } catch {
    return undefined;
  }
}

/** Object stream `num` (a plain object where the entries say), decoded once per cache; null when it cannot be. */
export function objectStreamByEntries(
  buf: Buffer,
  entries: XrefEntries,
  num: number,
  budget: InflateBudget = unbounded(),
  streams: ObjectStreamCache = new Map(),
): { data: Buffer; index: ObjectStreamIndex } | null {
  let decoded = streams.get(num);
  if (decoded !== undefined) return decoded;
  decoded = null;
  const container = entries.get(num);
  const stream = container?.type === 1 ? plainByEntry(buf, num, container.offset, container.gen) : undefined;
  if (stream && isDict(stream.value) && nameOf(stream.value.get('Type')) === 'ObjStm') {
    try {
      const { start, end } = streamBounds(stream.lexer, stream.value);
      const data = decodeStream(buf.subarray(start, end), stream.value, budget, start);
      decoded = { data, index: objectStreamIndex(data, stream.value) };
    } catch {
      decoded = null;
    }
  }
  streams.set(num, decoded);
  return decoded;
}

/**
 * Where compressed object `num` is in its object stream: the index its entry gives when the object there has that
 * number, else the (last) index that does, as readers find it (pdf.js and qpdf read an object stream by the numbers
 * it lists). Undefined when the stream does not hold it.
 */
export function indexInObjectStream(
  stream: { index: ObjectStreamIndex },
  num: number,
  index: number,
): number | undefined {
  const nums = stream.index.nums;
  if (index < nums.length && nums[index] === num) return index;
  const found = nums.lastIndexOf(num);
  return found < 0 ? undefined : found;
}

/**
 * Object `num` where the cross-reference data says it is (the reading of a reader that trusts it): at its offset
 * (within the drift readers tolerate), or in the object stream the entry names. Undefined when it is not there or does
 * not parse. `streams` keeps the object streams decoded between calls.
 */
export function objectByEntries(
  buf: Buffer,
  entries: XrefEntries,
  num: number,
  budget: InflateBudget = unbounded(),
  streams: ObjectStreamCache = new Map(),
): PdfValue | undefined {
  const entry = entries.get(num);
  if (!entry) return undefined;
  if (entry.type === 1) return plainByEntry(buf, num, entry.offset, entry.gen)?.value;
  const decoded = objectStreamByEntries(buf, entries, entry.stream, budget, streams);
  const i = decoded ? indexInObjectStream(decoded, num, entry.index) : undefined;
  if (!decoded || i === undefined) return undefined;
  try {
    return new PdfLexer(decoded.data.subarray(0, decoded.index.ends[i]), decoded.index.starts[i]).readValue();
  } catch {
    return undefined;
  }
}

/**
 * As objectByEntries, and whether the object is a stream (a dictionary followed by the `stream` keyword, whatever its
 * data): the signing engine asks both of each page it changes, and a stream's bounds need not be found for that.
 */
export function objectKindByEntries(
  buf: Buffer,
  entries: XrefEntries,
  num: number,
  budget: InflateBudget = unbounded(),
  streams: ObjectStreamCache = new Map(),
): { value: PdfValue | undefined; stream: boolean } {
  const entry = entries.get(num);
  if (entry?.type !== 1) return { value: objectByEntries(buf, entries, num, budget, streams), stream: false };
  const found = plainByEntry(buf, num, entry.offset, entry.gen);
  if (!found) return { value: undefined, stream: false };
  if (!isDict(found.value)) return { value: found.value, stream: false };
  found.lexer.skipSpace();
  return { value: found.value, stream: found.lexer.matchKeyword('stream') };
}

/**
 * The first object the cross-reference data lists that is there but does not parse: its value (or its stream's
 * bounds) is malformed, or the object stream holding it cannot be decoded. Entries at offset 0, and entries whose
 * object is not where they say (read as null), are not counted. Undefined when every object parses. `streams`
 * keeps the object streams decoded (for a caller that reads objects by the same entries afterwards).
 */
export function firstUnparsableObject(
  buf: Buffer,
  entries: XrefEntries,
  budget: InflateBudget = unbounded(),
  streams: ObjectStreamCache = new Map(),
): number | undefined {
  for (const [num, entry] of entries) {
    if (num === 0 || entry === null) continue;
    if (entry.type === 1) {
      if (entry.offset === 0) continue;
      const at = locate(buf, entry.offset, (p) => isObjectHeader(buf, p, num, entry.gen));
      const header = at < 0 ? undefined : readObjectHeader(buf, at);
      if (!header) continue;
      const lexer = new PdfLexer(buf, header.end);
      try {
        const value = lexer.readValue();
        lexer.skipSpace();
        if (isDict(value) && startsWithAt(buf, lexer.pos, 'stream')) streamBounds(lexer, value);
      } catch {
        return num;
      }
      continue;
    }
    const container = entries.get(entry.stream);
    if (!container || container.type !== 1) continue;
    const stream = objectStreamByEntries(buf, entries, entry.stream, budget, streams);
    if (!stream) {
      // An object stream that cannot be decoded; a container that is no object stream reads as holding nothing.
      const value = plainByEntry(buf, entry.stream, container.offset, container.gen)?.value;
      if (isDict(value) && nameOf(value.get('Type')) === 'ObjStm') return num;
      continue;
    }
    const i = indexInObjectStream(stream, num, entry.index);
    if (i === undefined) continue;
    try {
      new PdfLexer(stream.data.subarray(0, stream.index.ends[i]), stream.index.starts[i]).readValue();
    } catch {
      return num;
    }
  }
  return undefined;
}

/**
 * Whether the file ends inside an object: its last `N G obj` has no `endobj` after it and its value does not parse to
 * the end (or its stream has no `endstream`): a file cut off in the middle, whose first cross-reference section, at
 * the start of a linearized file, may still read.
 */
export function endsInsideObject(buf: Buffer): boolean {
  for (let at = buf.lastIndexOf('obj'); at >= 0; at = at > 0 ? buf.lastIndexOf('obj', at - 1) : -1) {
    if (!endsToken(buf[at + 3])) continue;
    if (at >= 3 && startsWithAt(buf, at - 3, 'end')) return false;
    const header = scanObjectHeaders(buf, Math.max(0, at - 32), at + 3).find((h) => h.end === at + 3);
    if (!header) continue;
    const lexer = new PdfLexer(buf, header.end);
    try {
      const value = lexer.readValue();
      lexer.skipSpace();
      if (isDict(value) && startsWithAt(buf, lexer.pos, 'stream')) streamBounds(lexer, value);
      return false;
    } catch {
      return true;
    }
  }
  return false;
}
