/**
 * Tokens and objects of PDF syntax (ISO 32000-1, 7.2 and 7.3), read straight from a file's bytes: enough for
 * cross-reference sections, trailers, object headers, the dictionaries around them and the values inside them.
 */

export class PdfName {
  constructor(readonly name: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A string's bytes: a literal string with its escapes undone, or a hex string decoded. */
export class PdfString {
  constructor(readonly bytes: Buffer) {}
}

export type PdfDict = Map<string, PdfValue>;
export type PdfValue = number | boolean | null | PdfName | PdfRef | PdfString | PdfValue[] | PdfDict;

/** Malformed syntax where a structure was expected. */
export class SyntaxProblem extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
    this.name = 'SyntaxProblem';
  }
}

const WHITESPACE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;

export const isWhitespace = (c: number): boolean => WHITESPACE[c] === 1;
export const isDelimiter = (c: number): boolean => DELIMITER[c] === 1;
/** True for the bytes that end a token: whitespace, a delimiter, or the end of the data (undefined). */
export const endsToken = (c: number | undefined): boolean =>
  c === undefined || WHITESPACE[c] === 1 || DELIMITER[c] === 1;
export const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isNumberChar = (c: number | undefined): boolean => isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e;

const MAX_DEPTH = 64;
const MAX_NUMBER_LENGTH = 64;

/** The escapes of a literal string (ISO 32000-1, 7.3.4.2, table 3). */
const ESCAPES: Record<number, number> = {
  0x6e: 0x0a, // n
  0x72: 0x0d, // r
  0x74: 0x09, // t
  0x62: 0x08, // b
  0x66: 0x0c, // f
  0x28: 0x28, // (
  0x29: 0x29, // )
  0x5c: 0x5c, // \
};

export class PdfLexer {
  constructor(
    readonly buf: Buffer,
    public pos: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  peek(): number | undefined {
    return this.buf[this.pos];
  }

  /** Skips whitespace and comments. */
  skipSpace(): void {
    const buf = this.buf;
    while (this.pos < buf.length) {
      const c = buf[this.pos];
      if (WHITESPACE[c]) this.pos++;
      else if (c === 0x25 /* % */) {
        while (this.pos < buf.length && buf[this.pos] !== 0x0a && buf[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** Consumes `word` when it is the next token (followed by whitespace, a delimiter or the end). */
  matchKeyword(word: string): boolean {
    if (!startsWithAt(this.buf, this.pos, word) || !endsToken(this.buf[this.pos + word.length])) return false;
    this.pos += word.length;
    return true;
  }

  /** A non-negative integer token, or undefined (position unchanged). */
  readUnsigned(): number | undefined {
    const start = this.pos;
    let end = start;
    let value = 0;
    while (isDigit(this.buf[end]) && end - start < MAX_NUMBER_LENGTH) value = value * 10 + this.buf[end++] - 0x30;
    if (end === start || !endsToken(this.buf[end])) return undefined;
    this.pos = end;
    // Digits past 15 may not add up exactly: those few are read as the text says.
    return end - start <= 15 ? value : Number(this.buf.toString('latin1', start, end));
  }

  /** Reads one object; an integer followed by `gen R` becomes a reference. */
  readValue(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new SyntaxProblem('objects nested too deeply', this.pos);
    this.skipSpace();
    const buf = this.buf;
    const c = buf[this.pos];
    if (c === undefined) throw new SyntaxProblem('unexpected end of data', this.pos);
    if (c === 0x3c /* < */) {
      if (buf[this.pos + 1] === 0x3c) return this.readDict(depth);
      return this.readHexString();
    }
    if (c === 0x5b /* [ */) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (this.done) throw new SyntaxProblem('unterminated array', this.pos);
        if (buf[this.pos] === 0x5d /* ] */) {
          this.pos++;
          return items;
        }
        items.push(this.readValue(depth + 1));
      }
    }
    if (c === 0x28 /* ( */) return this.readLiteralString();
    if (c === 0x2f /* / */) return this.readName();
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) return this.readNumberOrRef();
    if (this.matchKeyword('true')) return true;
    if (this.matchKeyword('false')) return false;
    if (this.matchKeyword('null')) return null;
    throw new SyntaxProblem('unexpected token', this.pos);
  }

  readDict(depth = 0): PdfDict {
    this.skipSpace();
    if (!startsWithAt(this.buf, this.pos, '<<')) throw new SyntaxProblem('expected a dictionary', this.pos);
    this.pos += 2;
    const dict: PdfDict = new Map();
    for (;;) {
      this.skipSpace();
      if (this.done) throw new SyntaxProblem('unterminated dictionary', this.pos);
      if (startsWithAt(this.buf, this.pos, '>>')) {
        this.pos += 2;
        return dict;
      }
      if (this.buf[this.pos] !== 0x2f) throw new SyntaxProblem('expected a name as dictionary key', this.pos);
      const key = this.readName().name;
      dict.set(key, this.readValue(depth + 1));
    }
  }

  private readName(): PdfName {
    const buf = this.buf;
    this.pos++; // '/'
    // Most names have no #xx escape: their bytes are their Latin-1 text, sliced at once (issue 23: a 352-page
    // document's page dictionaries are mostly names).
    let end = this.pos;
    while (end < buf.length && !endsToken(buf[end]) && buf[end] !== 0x23) end++;
    if (end >= buf.length || endsToken(buf[end])) {
      const name = buf.toString('latin1', this.pos, end);
      this.pos = end;
      return new PdfName(name);
    }
    const bytes: number[] = [];
    while (this.pos < buf.length && !endsToken(buf[this.pos])) {
      const c = buf[this.pos];
      const hex = c === 0x23 ? buf.toString('latin1', this.pos + 1, this.pos + 3) : '';
      if (hex.length === 2 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        this.pos += 3;
      } else {
        bytes.push(c);
        this.pos++;
      }
    }
    return new PdfName(Buffer.from(bytes).toString('latin1'));
  }

  private readNumberOrRef(): number | PdfRef {
    const buf = this.buf;
    const start = this.pos;
    let end = start;
    let digitsOnly = true;
    let integer = 0;
    while (end - start < MAX_NUMBER_LENGTH && isNumberChar(buf[end])) {
      const c = buf[end++];
      if (isDigit(c)) integer = integer * 10 + c - 0x30;
      else digitsOnly = false;
    }
    // An unsigned integer of up to 15 digits (object numbers, generations, most coordinates) without the text.
    const value = digitsOnly && end - start <= 15 ? integer : Number(buf.toString('latin1', start, end));
    if (!Number.isFinite(value) || !endsToken(buf[end])) throw new SyntaxProblem('malformed number', start);
    this.pos = end;
    if (digitsOnly) {
      // `num gen R`?
      const save = this.pos;
      this.skipSpace();
      const gen = this.readUnsigned();
      if (gen !== undefined) {
        this.skipSpace();
        if (this.matchKeyword('R')) return new PdfRef(value, gen);
      }
      this.pos = save;
    }
    return value;
  }

  private readHexString(): PdfString {
    const buf = this.buf;
    const close = buf.indexOf(0x3e /* > */, this.pos + 1);
    if (close < 0) throw new SyntaxProblem('unterminated hex string', this.pos);
    const hex = buf.toString('latin1', this.pos + 1, close).replace(/[\s\0]/g, '');
    if (!/^[0-9A-Fa-f]*$/.test(hex)) throw new SyntaxProblem('malformed hex string', this.pos);
    this.pos = close + 1;
    return new PdfString(Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex'));
  }

  private readLiteralString(): PdfString {
    const buf = this.buf;
    const start = this.pos;
    let depth = 0;
    let i = this.pos;
    let escaped = false;
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (c === 0x5c /* \ */) {
        escaped = true;
        i++;
      } else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
    }
    if (i >= buf.length) throw new SyntaxProblem('unterminated string', start);
    this.pos = i + 1;
    const raw = buf.subarray(start + 1, i);
    return new PdfString(escaped ? unescapeLiteral(raw) : raw);
  }
}

/** A literal string's bytes with its escapes undone: \n and the like, octal codes, a backslash before a line end. */
function unescapeLiteral(raw: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const n = raw[++i];
    if (n === undefined) break;
    if (n in ESCAPES) out.push(ESCAPES[n]);
    else if (n >= 0x30 && n <= 0x37) {
      let code = n - 0x30;
      for (let k = 0; k < 2 && raw[i + 1] >= 0x30 && raw[i + 1] <= 0x37; k++) code = code * 8 + raw[++i] - 0x30;
      out.push(code & 0xff);
    } else if (n === 0x0d) {
      if (raw[i + 1] === 0x0a) i++;
    } else if (n !== 0x0a) out.push(n);
  }
  return Buffer.from(out);
}

/**
 * A text string's text (ISO 32000-1, 7.9.2.2): UTF-16BE after its byte order mark, UTF-8 after its BOM (PDF 2.0), else
 * PDFDocEncoding, read as Latin-1 (they differ only in a few punctuation marks).
 */
export function textOf(value: PdfString): string {
  const bytes = value.bytes;
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2));
    if (swapped.length % 2) return swapped.toString('latin1');
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return bytes.subarray(3).toString('utf8');
  return bytes.toString('latin1');
}

/** One value read at `pos` of `buf`, or undefined when the bytes there are not one. */
export function valueAt(buf: Buffer, pos: number): PdfValue | undefined {
  try {
    return new PdfLexer(buf, pos).readValue();
  } catch {
    return undefined;
  }
}

export function startsWithAt(buf: Buffer, pos: number, text: string): boolean {
  if (pos < 0 || pos + text.length > buf.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[pos + i] !== text.charCodeAt(i)) return false;
  return true;
}

export const nameOf = (value: PdfValue | undefined): string | undefined =>
  value instanceof PdfName ? value.name : undefined;

export const numberOf = (value: PdfValue | undefined): number | undefined =>
  typeof value === 'number' ? value : undefined;

export const isDict = (value: PdfValue | undefined): value is PdfDict => value instanceof Map;

/** A value that may be one item or an array of them, as a list (/Filter, /DecodeParms). */
export const listOf = (value: PdfValue | undefined): PdfValue[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];

/** Whether two values are the same PDF value (names, numbers, strings' bytes, references, arrays, dictionaries). */
export function sameValue(a: PdfValue | undefined, b: PdfValue | undefined): boolean {
  if (a === b) return true;
  if (a instanceof PdfName && b instanceof PdfName) return a.name === b.name;
  if (a instanceof PdfRef && b instanceof PdfRef) return a.num === b.num && a.gen === b.gen;
  if (a instanceof PdfString && b instanceof PdfString) return a.bytes.equals(b.bytes);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (isDict(a) && isDict(b)) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !sameValue(value, b.get(key))) return false;
    return true;
  }
  return false;
}
