import { endsToken, isDict, nameOf, PdfRef, PdfString, type PdfDict, type PdfValue } from './lexer';
import { indexInObjectStream, objectStreamByEntries, PdfObjects, type ObjectStreamCache } from './objects';
import {
  isObjectHeader,
  locate,
  scanTrailerDictionaries,
  type CrossReference,
  type XrefEntries,
  type XrefEntry,
} from './xref';

/** Object numbers beyond this are refused (a 5 MB file holds fewer than a million objects). */
const MAX_ROWS = 2_000_000;

export interface RebuiltCrossReference {
  /** The file with the new cross-reference stream appended (the original bytes unchanged before it). */
  bytes: Buffer;
  /** The catalog the new trailer names. */
  root: number;
}

/** What the appended trailer names. */
export interface TrailerEntries {
  root: number;
  info?: PdfValue;
  id?: PdfValue;
}

/**
 * The file with a cross-reference stream appended (an incremental section without /Prev): every object of `entries`
 * where it is, and a trailer naming `root` and, when they are usable, the document information and the file
 * identifier. The bytes before it are unchanged; a reader of the result reads the objects exactly where the entries
 * say. Undefined when object numbers run beyond two million.
 */
export function appendCrossReference(buf: Buffer, entries: XrefEntries, trailer: TrailerEntries): Buffer | undefined {
  let highest = trailer.root;
  for (const num of entries.keys()) if (num > highest) highest = num;
  const size = highest + 2; // the new stream takes the number after the highest
  if (size > MAX_ROWS) return undefined;
  const self = size - 1;
  // One row per number: type, field 2, field 3 (ISO 32000-1, 7.5.8.3); free rows are zeros.
  const types = new Uint8Array(size);
  const field2 = new Float64Array(size);
  const field3 = new Float64Array(size);
  field3[0] = 65535;
  for (const [num, entry] of entries) {
    if (num === 0 || num >= self || !entry) continue;
    if (entry.type === 1) [types[num], field2[num], field3[num]] = [1, entry.offset, entry.gen];
    else [types[num], field2[num], field3[num]] = [2, entry.stream, entry.index];
  }
  const offset = buf.length + 1;
  [types[self], field2[self], field3[self]] = [1, offset, 0];

  const bytesFor = (values: Float64Array) => {
    let max = 0;
    for (const value of values) if (value > max) max = value;
    return Math.max(1, Math.ceil(Math.log2(max + 1) / 8));
  };
  const w1 = bytesFor(field2);
  const w2 = bytesFor(field3);
  const row = 1 + w1 + w2;
  const data = Buffer.alloc(size * row);
  for (let i = 0; i < size; i++) {
    data[i * row] = types[i];
    data.writeUIntBE(field2[i], i * row + 1, w1);
    data.writeUIntBE(field3[i], i * row + 1 + w1, w2);
  }

  const dict = [`/Type /XRef /Size ${size} /W [1 ${w1} ${w2}] /Length ${data.length} /Root ${trailer.root} 0 R`];
  const { info, id } = trailer;
  if (info instanceof PdfRef && entries.get(info.num)) dict.push(`/Info ${info.num} ${info.gen} R`);
  if (Array.isArray(id) && id.length === 2 && id.every((part) => part instanceof PdfString))
    dict.push(`/ID [${id.map((part) => `<${(part as PdfString).bytes.toString('hex')}>`).join(' ')}]`);
  return Buffer.concat([
    buf,
    Buffer.from(`\n${self} 0 obj\n<< ${dict.join(' ')} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`, 'latin1'),
  ]);
}

/**
 * A file whose cross-reference data reads (readCrossReference found no problem) with every entry pointing exactly at
 * its object: the offsets readers accept within a few bytes of drift (or after whitespace) moved onto the `N G obj`
 * they meant, a compressed object's index corrected to where its object stream lists its number (readers look
 * objects of a stream up by number), entries at offset 0 (read as null) left out, the newest trailer's /Root, /Info
 * and /ID kept. For a library that reads cross-reference data to the byte (and an object stream by index only), and
 * startxref only near the end of the file, the result reads as this reader reads the original. Undefined without a
 * /Root. `streams`: object streams already decoded.
 */
export function exactCrossReference(
  buf: Buffer,
  xref: CrossReference,
  streams: ObjectStreamCache = new Map(),
): Buffer | undefined {
  const root = xref.trailers.map((t) => t.get('Root')).find((r) => r instanceof PdfRef) as PdfRef | undefined;
  if (!root) return undefined;
  const entries: XrefEntries = new Map();
  for (const [num, entry] of xref.entries) {
    if (!entry || (entry.type === 1 && entry.offset === 0)) continue;
    if (entry.type === 2) {
      const stream = objectStreamByEntries(buf, xref.entries, entry.stream, undefined, streams);
      const index = stream ? indexInObjectStream(stream, num, entry.index) : undefined;
      if (index !== undefined) entries.set(num, { type: 2, stream: entry.stream, index });
      continue;
    }
    const at = locate(buf, entry.offset, (p) => isObjectHeader(buf, p, num, entry.gen));
    if (at >= 0) entries.set(num, { type: 1, offset: at, gen: entry.gen });
  }
  return appendCrossReference(buf, entries, {
    root: root.num,
    info: xref.trailers.map((t) => t.get('Info')).find((v) => v !== undefined),
    id: xref.trailers.map((t) => t.get('ID')).find((v) => v !== undefined),
  });
}

/**
 * A file whose cross-reference data is wrong, made readable as written: a cross-reference stream is appended that
 * lists every object where it really is (the newest definition of each number, found by scanning; compressed ones by
 * their object stream) with a trailer naming the catalog, the document information and the file identifier of the
 * newest trailer dictionaries found in the file. This is how a reader that rebuilds a damaged file reads it, written
 * down so that any reader (and a library that trusts cross-reference data) reads the same.
 *
 * The catalog is the one the trailers name when it is a /Type /Catalog dictionary, else the catalog object with the
 * highest number. Undefined when there is no catalog at all, or object numbers run beyond two million.
 */
export function rebuildCrossReference(buf: Buffer, objects = new PdfObjects(buf)): RebuiltCrossReference | undefined {
  let rootRef: PdfValue | undefined;
  let info: PdfValue | undefined;
  let id: PdfValue | undefined;
  for (const dict of scanTrailerDictionaries(buf)) {
    rootRef = dict.get('Root') ?? rootRef;
    info = dict.get('Info') ?? info;
    id = dict.get('ID') ?? id;
  }
  const isCatalog = (value: PdfValue | undefined): value is PdfDict =>
    isDict(value) && nameOf(value.get('Type')) === 'Catalog';
  let root = rootRef instanceof PdfRef && isCatalog(objects.get(rootRef.num)?.value) ? rootRef.num : undefined;
  root ??= findCatalog(objects, isCatalog);
  if (root === undefined) return undefined;

  const entries: XrefEntries = new Map();
  for (const num of objects.numbers()) {
    const header = objects.header(num);
    const member = header ? undefined : objects.compressed(num);
    const entry: XrefEntry | undefined = header
      ? { type: 1, offset: header.offset, gen: header.gen }
      : member && { type: 2, stream: member.stream, index: member.index };
    if (entry) entries.set(num, entry);
  }
  const bytes = appendCrossReference(buf, entries, { root, info, id });
  return bytes && { bytes, root };
}

/** The catalog object with the highest number among the newest definitions (plain or compressed). */
function findCatalog(objects: PdfObjects, isCatalog: (value: PdfValue | undefined) => boolean): number | undefined {
  let found: number | undefined;
  const consider = (num: number) => {
    if ((found === undefined || num > found) && isCatalog(objects.get(num)?.value)) found = num;
  };
  const buf = objects.buf;
  for (let at = buf.indexOf('/Catalog'); at >= 0; at = buf.indexOf('/Catalog', at + 8)) {
    if (!endsToken(buf[at + 8])) continue;
    const header = objects.headerBefore(at);
    if (header && objects.header(header.num) === header) consider(header.num);
  }
  for (const member of objects.searchObjectStreams(/\/Catalog\b/)) consider(member.num);
  return found;
}
