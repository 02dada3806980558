/**
 * A small reader of PDF syntax (ISO 32000-1, 7.2 and 7.3), enough to read cross-reference sections, trailers and the
 * dictionaries around them straight from the file's bytes, before and apart from pdf-lib's parser.
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
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isNumberChar = (c: number | undefined): boolean => isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e;

const MAX_DEPTH = 64;
const MAX_NUMBER_LENGTH = 64;

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
    while (isDigit(this.buf[end]) && end - start < MAX_NUMBER_LENGTH) end++;
    if (end === start || !endsToken(this.buf[end])) return undefined;
    this.pos = end;
    return Number(this.buf.toString('latin1', start, end));
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
    while (end - start < MAX_NUMBER_LENGTH && isNumberChar(buf[end])) end++;
    const text = buf.toString('latin1', start, end);
    const value = Number(text);
    if (!Number.isFinite(value) || !endsToken(buf[end])) throw new SyntaxProblem('malformed number', start);
    this.pos = end;
    if (/^\d+$/.test(text)) {
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
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
    }
    if (i >= buf.length) throw new SyntaxProblem('unterminated string', start);
    this.pos = i + 1;
    // The raw bytes are enough here: nothing reads a string's text.
    return new PdfString(buf.subarray(start + 1, i));
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
