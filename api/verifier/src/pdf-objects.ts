import { inflateSync } from 'node:zlib';
import { objectStreamObjects } from './pdf';

/**
 * Reading indirect objects by number, for what long-term validation stores outside the signatures: the Document
 * Security Store (ISO 32000-2 §12.8.4.3: /DSS in the catalog, with /Certs, /OCSPs and /CRLs arrays of streams), and
 * whether the updates after the last signature hold only such validation data. The newest definition of an object
 * wins (incremental updates redefine objects further down the file); compressed object streams are read when an
 * object is not written plainly.
 */

export interface PdfObject {
  number: number;
  /** Where `N G obj` starts (−1 inside an object stream). */
  start: number;
  /** The object's text up to `stream` or `endobj`. */
  body: string;
  /** Where the stream's data starts (after `stream` and its end of line), or −1 without a stream. */
  streamStart: number;
}

/** The validation data a document's DSS carries (every DSS version found, merged; duplicates dropped). */
export interface DssContent {
  present: boolean;
  certificates: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
}

const OBJ = /(?:^|[\s>\]])(\d+)\s+(\d+)\s+obj\b/g;
const REF = /(\d+)\s+(\d+)\s+R\b/g;

/** The raw text of a value starting at `at`: a balanced dictionary, array or string, or a token (a ref is 3 tokens). */
function valueAt(text: string, at: number): string {
  let i = at;
  while (/\s/.test(text[i] ?? '')) i++;
  const start = i;
  if (text.startsWith('<<', i) || text[i] === '[' || text[i] === '(') {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '(') {
        // a literal string: skip to its balanced end
        let d = 0;
        for (; i < text.length; i++) {
          if (text[i] === '\\') i++;
          else if (text[i] === '(') d++;
          else if (text[i] === ')' && --d === 0) break;
        }
        if (depth === 0) return text.slice(start, i + 1);
        continue;
      }
      if (text.startsWith('<<', i)) {
        depth++;
        i++;
      } else if (c === '<') {
        // a hex string: its '>' is not the end of a dictionary
        const close = text.indexOf('>', i);
        if (close < 0) break;
        i = close;
      } else if (text.startsWith('>>', i)) {
        depth--;
        i++;
        if (depth === 0) return text.slice(start, i + 1);
      } else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return text.slice(start, i + 1);
    }
    return text.slice(start);
  }
  const ref = /^(\d+)\s+(\d+)\s+R\b/.exec(text.slice(i, i + 40));
  if (ref) return ref[0];
  const token = /^(<[0-9A-Fa-f\s]*>|\/[^\s/<>[\]()]*|[^\s/<>[\]()]+)/.exec(text.slice(i, i + 200));
  return token ? token[0] : '';
}

/** The top-level entries of the first dictionary in `text`: key → the value's raw text. */
export function dictEntries(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  const open = text.indexOf('<<');
  if (open < 0) return entries;
  const dict = valueAt(text, open);
  let i = 2;
  while (i < dict.length - 2) {
    const key = /^\s*\/([^\s/<>[\]()]+)/.exec(dict.slice(i, i + 200));
    if (!key) break;
    i += key[0].length;
    const rest = dict.slice(i);
    const value = valueAt(rest, 0);
    const skipped = rest.length - rest.trimStart().length;
    entries.set(key[1], value);
    i += skipped + value.length;
  }
  return entries;
}

const refsIn = (text: string): number[] => [...text.matchAll(REF)].map((m) => Number(m[1]));

/** An index of the file's objects: the newest plain definition of each, and (lazily) those of object streams. */
export class ObjectIndex {
  private readonly text: string;
  private readonly plain = new Map<number, number>();
  private compressed: Map<number, string> | null = null;

  constructor(private readonly bytes: Buffer) {
    this.text = bytes.toString('latin1');
    for (const m of this.text.matchAll(OBJ)) this.plain.set(Number(m[1]), m.index + m[0].indexOf(m[1]));
  }

  /** Every object defined (plainly) in [from, to), newest definition of each number in that range. */
  definedBetween(from: number, to: number): PdfObject[] {
    const found = new Map<number, PdfObject>();
    const region = this.text.slice(from, to);
    for (const m of region.matchAll(OBJ)) {
      const start = from + m.index + m[0].indexOf(m[1]);
      found.set(Number(m[1]), this.objectAt(Number(m[1]), start));
    }
    return [...found.values()];
  }

  /** The definition of `number` before `before` (the version an update replaced), or null. */
  previous(number: number, before: number): PdfObject | null {
    let last = -1;
    const re = new RegExp(`(?:^|[\\s>\\]])${number}\\s+\\d+\\s+obj\\b`, 'g');
    for (const m of this.text.slice(0, before).matchAll(re)) last = m.index + m[0].indexOf(String(number));
    if (last >= 0) return this.objectAt(number, last);
    const inStream = this.streams().get(number);
    return inStream === undefined ? null : { number, start: -1, body: inStream, streamStart: -1 };
  }

  get(number: number): PdfObject | null {
    const start = this.plain.get(number);
    if (start !== undefined) return this.objectAt(number, start);
    const inStream = this.streams().get(number);
    return inStream === undefined ? null : { number, start: -1, body: inStream, streamStart: -1 };
  }

  /** A stream object's decoded data (no filter or FlateDecode); null when it is not a stream it can decode. */
  streamData(object: PdfObject): Buffer | null {
    if (object.streamStart < 0) return null;
    const dict = dictEntries(object.body);
    let length = Number(dict.get('Length'));
    const lengthRef = /^(\d+)\s+\d+\s+R$/.exec(dict.get('Length') ?? '');
    if (lengthRef)
      length = Number(/^\s*(\d+)/.exec(this.get(Number(lengthRef[1]))?.body.replace(/^.*?obj/s, '') ?? '')?.[1]);
    let end = object.streamStart + length;
    if (!Number.isInteger(length) || end > this.bytes.length || !/^\s*endstream/.test(this.text.slice(end, end + 20))) {
      end = this.text.indexOf('endstream', object.streamStart);
      if (end < 0) return null;
      while (end > object.streamStart && /[\r\n]/.test(this.text[end - 1])) end--;
    }
    const raw = this.bytes.subarray(object.streamStart, end);
    const filter = dict.get('Filter') ?? '';
    if (!filter) return Buffer.from(raw);
    if (/^\[?\s*\/FlateDecode\s*\]?$/.test(filter) && !dict.has('DecodeParms')) {
      try {
        return inflateSync(raw, { finishFlush: 2 });
      } catch {
        return null;
      }
    }
    return null;
  }

  /** Resolves a value's raw text: a reference becomes the referenced object's body. */
  resolve(value: string | undefined): string {
    const ref = /^(\d+)\s+\d+\s+R$/.exec(value ?? '');
    if (!ref) return value ?? '';
    const body = this.get(Number(ref[1]))?.body ?? '';
    return body.replace(/^\s*\d+\s+\d+\s+obj\s*/, '');
  }

  /** Every object number that holds a /DSS entry's dictionary (plain or compressed catalogs, every revision). */
  dssObjects(): { numbers: number[]; direct: string[] } {
    const numbers = new Set<number>();
    const direct: string[] = [];
    const scan = (text: string) => {
      for (const m of text.matchAll(/\/DSS\b/g)) {
        const value = valueAt(text, m.index + 4);
        const ref = /^(\d+)\s+\d+\s+R$/.exec(value);
        if (ref) numbers.add(Number(ref[1]));
        else if (value.startsWith('<<')) direct.push(value);
      }
    };
    scan(this.text);
    for (const body of this.streams().values()) scan(body);
    for (const m of this.text.matchAll(/\/Type\s*\/DSS\b/g)) {
      const head = this.text.lastIndexOf(' obj', m.index);
      const num = /(\d+)\s+\d+\s*$/.exec(this.text.slice(Math.max(0, head - 24), head))?.[1];
      if (num) numbers.add(Number(num));
    }
    return { numbers: [...numbers], direct };
  }

  private streams(): Map<number, string> {
    this.compressed ??= objectStreamObjects(this.text, this.bytes);
    return this.compressed;
  }

  private objectAt(number: number, start: number): PdfObject {
    const end = this.text.indexOf('endobj', start);
    const streamKw = /\bstream(\r\n|\n|\r)/.exec(this.text.slice(start, end < 0 ? start + 65_536 : end));
    const bodyEnd = streamKw ? start + streamKw.index : end < 0 ? this.text.length : end;
    return {
      number,
      start,
      body: this.text.slice(start, bodyEnd),
      streamStart: streamKw ? start + streamKw.index + streamKw[0].length : -1,
    };
  }
}

/** The streams an array value (direct or referenced) points at, decoded. */
function streamsOf(index: ObjectIndex, value: string | undefined): Buffer[] {
  const out: Buffer[] = [];
  for (const number of refsIn(index.resolve(value))) {
    const object = index.get(number);
    const data = object ? index.streamData(object) : null;
    if (data?.length) out.push(data);
  }
  return out;
}

const unique = (items: Buffer[]): Buffer[] => {
  const seen = new Set<string>();
  return items.filter((b) => {
    const key = b.toString('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** What every DSS of the document holds: certificates, OCSP responses and CRLs (DER each). */
export function readDss(index: ObjectIndex): DssContent {
  const { numbers, direct } = index.dssObjects();
  const dicts = [...numbers.map((n) => index.resolve(`${n} 0 R`)), ...direct];
  const content: DssContent = { present: dicts.length > 0, certificates: [], ocsps: [], crls: [] };
  for (const text of dicts) {
    const entries = dictEntries(text);
    content.certificates.push(...streamsOf(index, entries.get('Certs')));
    content.ocsps.push(...streamsOf(index, entries.get('OCSPs')));
    content.crls.push(...streamsOf(index, entries.get('CRLs')));
  }
  return {
    present: content.present,
    certificates: unique(content.certificates),
    ocsps: unique(content.ocsps),
    crls: unique(content.crls),
  };
}

/** Every object a value reaches through references (the DSS's arrays, its VRI dictionaries and their streams). */
function reachable(index: ObjectIndex, text: string, seen: Set<number>): void {
  for (const number of refsIn(text)) {
    if (seen.has(number)) continue;
    seen.add(number);
    const object = index.get(number);
    if (object && object.streamStart < 0) reachable(index, object.body.replace(/^\s*\d+\s+\d+\s+obj/, ''), seen);
  }
}

const withoutValidationEntries = (body: string): string => {
  const entries = dictEntries(body);
  entries.delete('DSS');
  entries.delete('Extensions');
  return [...entries.entries()]
    .map(([k, v]) => `/${k} ${v.replace(/\s+/g, ' ')}`)
    .sort()
    .join(' ');
};

/**
 * Do the updates in [from, end of file) add nothing but validation data: DSS dictionaries and what they reference,
 * a catalog that differs from its previous version only by /DSS (and the /Extensions a PAdES writer may add), and
 * the updates' own cross-reference streams? ETSI EN 319 142-1 allows such updates after the signatures.
 */
export function onlyValidationData(index: ObjectIndex, bytes: Buffer, from: number): boolean {
  const objects = index.definedBetween(from, bytes.length);
  if (!objects.length) return false;
  const allowed = new Set<number>();
  const { numbers, direct } = index.dssObjects();
  for (const n of numbers) {
    allowed.add(n);
    reachable(index, index.resolve(`${n} 0 R`), allowed);
  }
  for (const text of direct) reachable(index, text, allowed);
  let dssSeen = false;
  for (const object of objects) {
    if (/\/Type\s*\/XRef\b/.test(object.body)) continue;
    if (/\/Type\s*\/DSS\b/.test(object.body)) {
      dssSeen = true;
      continue;
    }
    if (/\/Type\s*\/Catalog\b/.test(object.body)) {
      const before = index.previous(object.number, object.start);
      if (!before || withoutValidationEntries(before.body) !== withoutValidationEntries(object.body)) return false;
      dssSeen ||= /\/DSS\b/.test(object.body);
      continue;
    }
    if (!allowed.has(object.number)) return false;
  }
  return dssSeen;
}
