import { isDict, PdfName, PdfRef, PdfString, type PdfDict, type PdfValue } from './lexer';

/*
 * Writing PDF syntax (ISO 32000-1, 7.3 and 7.5.6): values, indirect objects and one incremental update (the objects
 * it adds or replaces, its cross-reference section and its trailer), appended to a file whose bytes stay as they are.
 * The signing engine writes each revision of a document with it (ARCHITECTURE.md, "The incremental writer"): a
 * signer's revision is a few hundred small objects, written in one pass, whatever the size of the document.
 */

/** A stream object: its dictionary (without /Length, which the writer sets) and its data as stored (encoded). */
export class PdfStreamValue {
  constructor(
    readonly dict: PdfDict,
    readonly data: Buffer,
  ) {}
}

/**
 * An object whose bytes are written as given (between `N G obj` and `endobj`): a signature dictionary whose
 * /ByteRange and /Contents are patched in place afterwards. `marks` name positions inside `bytes` the caller wants
 * back as offsets in the update.
 */
export class PdfRawObject {
  constructor(
    readonly bytes: Buffer,
    readonly marks: Record<string, number> = {},
  ) {}
}

export type PdfObjectBody = PdfValue | PdfStreamValue | PdfRawObject;

const NAME_REGULAR = new Uint8Array(256);
for (let c = 0x21; c <= 0x7e; c++) NAME_REGULAR[c] = 1;
for (const c of '()<>[]{}/%#') NAME_REGULAR[c.charCodeAt(0)] = 0;

/** A name as written: bytes outside the regular printable ones as #xx (the lexer reads names as Latin-1). */
export function nameText(name: string): string {
  let out = namesWritten.get(name);
  if (out === undefined) {
    out = nameTextOf(name);
    // The same few dozen names (/Type, /Page, /Resources, …) are written thousands of times a revision.
    if (namesWritten.size >= 4096) namesWritten.clear();
    namesWritten.set(name, out);
  }
  return out;
}
const namesWritten = new Map<string, string>();

function nameTextOf(name: string): string {
  let out = '/';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i) & 0xff;
    out += NAME_REGULAR[c] ? name[i] : `#${c.toString(16).padStart(2, '0').toUpperCase()}`;
  }
  return out;
}

/**
 * A number as written: integers as they are; reals in fixed notation (PDF has no exponents), with at most 6 decimals
 * (the precision readers keep), without trailing zeros.
 */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`${n} is not a PDF number`);
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 53) return String(n);
  const fixed = n.toFixed(6).replace(/\.?0+$/, '');
  return fixed === '-0' ? '0' : fixed;
}

/** One value as PDF syntax (strings as hex strings: every byte kept exactly, whatever it is). */
export function valueText(value: PdfValue): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return numberText(value);
  if (value instanceof PdfName) return nameText(value.name);
  if (value instanceof PdfRef) return `${value.num} ${value.gen} R`;
  if (value instanceof PdfString) return `<${value.bytes.toString('hex')}>`;
  if (Array.isArray(value)) return `[${value.map(valueText).join(' ')}]`;
  if (isDict(value)) return dictText(value);
  throw new TypeError('not a PDF value');
}

function dictText(dict: PdfDict, extra = ''): string {
  let out = '<<';
  for (const [key, item] of dict) out += `${nameText(key)} ${valueText(item)}`;
  return `${out}${extra}>>`;
}

/** `N G obj … endobj`: a value, a stream (its /Length set from the data) or raw bytes. */
export function objectBytes(num: number, gen: number, body: PdfObjectBody): Buffer {
  const head = `${num} ${gen} obj\n`;
  if (body instanceof PdfRawObject)
    return Buffer.concat([Buffer.from(head, 'latin1'), body.bytes, Buffer.from('\nendobj\n', 'latin1')]);
  if (body instanceof PdfStreamValue) {
    const dict = new Map(body.dict);
    dict.delete('Length');
    return Buffer.concat([
      Buffer.from(`${head}${dictText(dict, `/Length ${body.data.length}`)}\nstream\n`, 'latin1'),
      body.data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]);
  }
  return Buffer.from(plainObjectText(num, gen, body), 'latin1');
}

/** `N G obj … endobj` of a plain value, as text (ASCII: names and strings are written escaped). */
function plainObjectText(num: number, gen: number, body: PdfValue): string {
  return `${num} ${gen} obj\n${valueText(body)}\nendobj\n`;
}

/** What the trailer of an update names (ISO 32000-1, 7.5.5): the catalog and, as the document has them, the rest. */
export interface UpdateTrailer {
  /** One more than the highest object number in the file after the update. */
  size: number;
  root: PdfRef;
  info?: PdfValue;
  id?: PdfValue;
  /** The offset of the previous cross-reference section (the file's last startxref). */
  prev: number;
}

export interface WrittenUpdate {
  /** The update's bytes, to append to the file. */
  bytes: Buffer;
  /** Where each object of the update starts, from the start of the file. */
  offsets: Map<number, number>;
  /** The raw objects' marks, from the start of the file. */
  marks: Record<string, number>;
  /** The update's cross-reference section (its startxref). */
  startxref: number;
  /** The new /Size (the cross-reference stream, when there is one, takes a number too). */
  size: number;
}

/**
 * One incremental update (ISO 32000-1, 7.5.6) to a file of `fileLength` bytes: the objects (new ones and new versions
 * of old ones, generation 0 for new ones), then a cross-reference section listing exactly them and a trailer naming
 * the previous section. The section is a cross-reference stream when `xrefStream` (the file's last section is one,
 * and a reader of such a file may expect them) and a table otherwise. The bytes of the file are not needed: only
 * where it ends and whether it ends with a line break.
 */
export function writeUpdate(
  fileLength: number,
  endsWithNewline: boolean,
  objects: Map<number, { gen: number; body: PdfObjectBody }>,
  trailer: UpdateTrailer,
  xrefStream: boolean,
): WrittenUpdate {
  const parts: Buffer[] = [];
  let position = fileLength;
  // Plain objects' text (ASCII: names and strings are written escaped) is gathered and turned into bytes once: a
  // signer's revision of a 352-page book is 352 page dictionaries, each its own small Buffer otherwise (issue 23).
  let text = '';
  const flush = () => {
    if (text) parts.push(Buffer.from(text, 'latin1'));
    text = '';
  };
  const push = (bytes: Buffer) => {
    flush();
    parts.push(bytes);
    position += bytes.length;
  };
  if (!endsWithNewline) {
    text += '\n';
    position += 1;
  }
  const offsets = new Map<number, number>();
  const gens = new Map<number, number>();
  const marks: Record<string, number> = {};
  const numbers = [...objects.keys()].sort((a, b) => a - b);
  for (const num of numbers) {
    const { gen, body } = objects.get(num)!;
    offsets.set(num, position);
    gens.set(num, gen);
    if (!(body instanceof PdfRawObject) && !(body instanceof PdfStreamValue)) {
      const object = plainObjectText(num, gen, body);
      text += object;
      position += object.length;
      continue;
    }
    const bytes = objectBytes(num, gen, body);
    if (body instanceof PdfRawObject) {
      const start = position + bytes.indexOf('obj\n') + 4;
      for (const [mark, at] of Object.entries(body.marks)) marks[mark] = start + at;
    }
    push(bytes);
  }
  flush();
  let size = Math.max(trailer.size, (numbers[numbers.length - 1] ?? 0) + 1);
  const startxref = position;
  const extras: string[] = [`/Root ${valueText(trailer.root)}`];
  if (trailer.info !== undefined) extras.push(`/Info ${valueText(trailer.info)}`);
  if (trailer.id !== undefined) extras.push(`/ID ${valueText(trailer.id)}`);
  extras.push(`/Prev ${trailer.prev}`);
  if (xrefStream) {
    const self = size;
    size += 1;
    offsets.set(self, startxref);
    gens.set(self, 0);
    const rows = [...numbers, self];
    const width = Math.max(1, Math.ceil(Math.log2(startxref + 1) / 8));
    const data = Buffer.alloc(rows.length * (1 + width + 2));
    rows.forEach((num, i) => {
      const at = i * (1 + width + 2);
      data[at] = 1;
      data.writeUIntBE(offsets.get(num)!, at + 1, width);
      data.writeUInt16BE(gens.get(num)!, at + 1 + width);
    });
    const dict =
      `/Type /XRef /Size ${size} /Index [${subsections(rows)
        .map(([first, count]) => `${first} ${count}`)
        .join(' ')}] /W [1 ${width} 2] ` + extras.join(' ');
    push(Buffer.from(`${self} 0 obj\n<<${dict} /Length ${data.length}>>\nstream\n`, 'latin1'));
    push(data);
    push(Buffer.from(`\nendstream\nendobj\nstartxref\n${startxref}\n%%EOF\n`, 'latin1'));
  } else {
    let table = 'xref\n';
    let row = 0;
    for (const [first, count] of subsections(numbers)) {
      table += `${first} ${count}\n`;
      for (let i = 0; i < count; i++, row++) {
        const num = numbers[row];
        // Each entry is exactly 20 bytes: 10 digits, a space, 5 digits, a space, n, a space and a line feed.
        table += `${String(offsets.get(num)).padStart(10, '0')} ${String(gens.get(num)).padStart(5, '0')} n \n`;
      }
    }
    table += `trailer\n<</Size ${size} ${extras.join(' ')}>>\nstartxref\n${startxref}\n%%EOF\n`;
    push(Buffer.from(table, 'latin1'));
  }
  return { bytes: Buffer.concat(parts), offsets, marks, startxref, size };
}

/** Runs of consecutive numbers: [first, count] each. */
function subsections(sorted: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const num of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === num) last[1]++;
    else runs.push([num, 1]);
  }
  return runs;
}
