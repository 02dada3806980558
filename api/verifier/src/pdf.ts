import { inflateSync } from 'node:zlib';

/**
 * Just enough PDF reading for the verifier: the signature dictionaries (those with /ByteRange and /Contents, which a
 * PDF must keep as plain bytes in the file since /ByteRange points at them), their fields' names (the field may sit in
 * a compressed object stream), and where each revision ends (%%EOF). The DSS is read in `pdf-objects.ts`.
 */

export type ByteRange = [number, number, number, number];

export interface PdfSignature {
  /** The field's /T (partial name), or a stand-in when no field points at the dictionary. */
  field: string;
  /** Object number of the signature dictionary (null when it could not be told). */
  objectNumber: number | null;
  byteRange: ByteRange;
  /** The CMS: /Contents decoded, without the zero padding after its DER. */
  cms: Buffer;
  subFilter: string | null;
  /** /M, /Name, /Reason of the dictionary when present. */
  m: Date | null;
  name: string | null;
  reason: string | null;
  /** A form field's signature, or the usage-rights signature (/Perms /UR3) of a Reader-extended form. */
  kind: 'field' | 'usage rights';
  /** A document timestamp (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161): /Contents is a timestamp token. */
  documentTimestamp: boolean;
  /** Problems with the dictionary itself (the /ByteRange does not frame /Contents, …). */
  problems: string[];
}

const latin1 = (bytes: Buffer) => bytes.toString('latin1');

/** Does it look like a PDF at all: %PDF- in the first KiB (readers allow leading junk). */
export function looksLikePdf(bytes: Buffer): boolean {
  return latin1(bytes.subarray(0, 1024)).includes('%PDF-');
}

/** A PDF literal or hex string's text: escapes, and UTF-16BE when it starts with a BOM. */
export function decodePdfString(raw: string): string {
  let bytes: Buffer;
  if (raw.startsWith('<')) {
    const hex = raw.slice(1, -1).replace(/\s+/g, '');
    bytes = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  } else {
    const body = raw.slice(1, -1);
    const out: number[] = [];
    for (let i = 0; i < body.length; i++) {
      const c = body[i];
      if (c !== '\\') {
        out.push(c.charCodeAt(0) & 0xff);
        continue;
      }
      const n = body[++i];
      const simple: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
      if (n === undefined) break;
      if (n in simple) out.push(simple[n]);
      else if (/[0-7]/.test(n)) {
        let oct = n;
        while (oct.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) oct += body[++i];
        out.push(parseInt(oct, 8) & 0xff);
      } else if (n === '\r') {
        if (body[i + 1] === '\n') i++;
      } else if (n !== '\n') out.push(n.charCodeAt(0) & 0xff);
    }
    bytes = Buffer.from(out);
  }
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

/** The string value of `/Key (…)` or `/Key <…>` in a dictionary's text (balanced parentheses). */
export function stringValue(dict: string, key: string): string | null {
  const at = new RegExp(`/${key}\\s*([(<])`).exec(dict);
  if (!at) return null;
  const start = at.index + at[0].length - 1;
  if (at[1] === '<') {
    const end = dict.indexOf('>', start);
    return end < 0 ? null : decodePdfString(dict.slice(start, end + 1));
  }
  let depth = 0;
  for (let i = start; i < dict.length; i++) {
    const c = dict[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return decodePdfString(dict.slice(start, i + 1));
  }
  return null;
}

/** D:YYYYMMDDHHmmSS+HH'mm' (every part after the year optional) as a Date. */
export function parsePdfDate(text: string | null): Date | null {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(text ?? '');
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz, th = '00', tm = '00'] = m;
  const utc = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const offset = (+th * 60 + +tm) * 60_000 * (tz === '-' ? -1 : tz === '+' ? 1 : 0);
  const date = new Date(utc - offset);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The length of the DER element at the start of `bytes` (definite lengths only), or null: where the CMS ends and the
 * placeholder's zero padding begins. Reading one length header (kept from the CLI's first verifier) costs nothing,
 * where asn1js would parse the whole CMS once more.
 */
function derLength(bytes: Buffer): number | null {
  if (bytes.length < 2) return null;
  const first = bytes[1];
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  if (n === 0 || n > 4 || bytes.length < 2 + n) return null;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + bytes[2 + i];
  return 2 + n + len;
}

/** Objects of the compressed object streams (/Type /ObjStm, FlateDecode), by object number: the latest wins. */
export function objectStreamObjects(text: string, bytes: Buffer): Map<number, string> {
  const objects = new Map<number, string>();
  const streamRe = /\/Type\s*\/ObjStm\b/g;
  for (let m = streamRe.exec(text); m; m = streamRe.exec(text)) {
    const dictStart = text.lastIndexOf('obj', m.index);
    const streamKw = text.indexOf('stream', m.index);
    if (dictStart < 0 || streamKw < 0) continue;
    const dict = text.slice(dictStart, streamKw);
    if (!/\/FlateDecode/.test(dict) || /\/DecodeParms/.test(dict)) continue;
    const n = Number(/\/N\s+(\d+)/.exec(dict)?.[1]);
    const first = Number(/\/First\s+(\d+)/.exec(dict)?.[1]);
    let dataStart = streamKw + 'stream'.length;
    if (text[dataStart] === '\r') dataStart++;
    if (text[dataStart] === '\n') dataStart++;
    const end = text.indexOf('endstream', dataStart);
    if (end < 0 || !Number.isFinite(n) || !Number.isFinite(first)) continue;
    let data: string;
    try {
      data = inflateSync(bytes.subarray(dataStart, end), { finishFlush: 2 }).toString('latin1');
    } catch {
      continue;
    }
    const header = data.slice(0, first).trim().split(/\s+/).map(Number);
    for (let i = 0; i < n; i++) {
      const num = header[2 * i];
      const off = header[2 * i + 1];
      const next = i + 1 < n ? header[2 * i + 3] : data.length - first;
      if (Number.isFinite(num) && Number.isFinite(off)) objects.set(num, data.slice(first + off, first + next));
    }
  }
  return objects;
}

/** Where each revision ends: after each %%EOF and its end-of-line. */
export function revisionEnds(bytes: Buffer): number[] {
  const text = latin1(bytes);
  const ends: number[] = [];
  for (let at = text.indexOf('%%EOF'); at >= 0; at = text.indexOf('%%EOF', at + 5)) {
    let end = at + 5;
    if (text[end] === '\r') end++;
    if (text[end] === '\n') end++;
    ends.push(at + 5);
    if (end !== at + 5) ends.push(end);
  }
  return ends;
}

/** Every signature dictionary holding a /ByteRange, oldest (smallest coverage) first. */
export function findSignatures(bytes: Buffer): PdfSignature[] {
  const text = latin1(bytes);
  const found = new Map<string, PdfSignature>();
  let compressed: Map<number, string> | null = null;
  const byteRangeRe = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;
  for (let m = byteRangeRe.exec(text); m; m = byteRangeRe.exec(text)) {
    const byteRange = m.slice(1, 5).map(Number) as ByteRange;
    const key = byteRange.join(' ');
    if (found.has(key)) continue;
    const [o1, l1, o2, l2] = byteRange;
    const problems: string[] = [];
    if (o1 !== 0) problems.push('its /ByteRange does not start at the beginning of the file');
    if (o2 + l2 > bytes.length) problems.push('its /ByteRange reaches past the end of the file');
    // The gap must be exactly the <hex> of /Contents.
    let cms = Buffer.alloc(0);
    if (bytes[o1 + l1] !== 0x3c || bytes[o2 - 1] !== 0x3e || o2 <= o1 + l1) {
      problems.push('its /ByteRange does not frame /Contents exactly');
    } else {
      const hex = text.slice(o1 + l1 + 1, o2 - 1).replace(/\s+/g, '');
      if (!/^[0-9a-fA-F]*$/.test(hex)) problems.push('its /Contents is not a hex string');
      else {
        const all = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
        const len = derLength(all);
        cms = len !== null && len <= all.length ? all.subarray(0, len) : all;
      }
    }
    // The dictionary: from its `N G obj` to `endobj`, the hex of /Contents left out.
    const objAt = text.lastIndexOf(' obj', m.index);
    const head = /(\d+)\s+(\d+)\s+obj\s*$/.exec(text.slice(Math.max(0, objAt - 24), objAt + 4));
    const objectNumber = head ? Number(head[1]) : null;
    const framed = problems.length === 0 && objAt >= 0 && objAt < o1 + l1;
    const endobj = text.indexOf('endobj', framed ? Math.max(o2, m.index) : m.index);
    const stop = endobj < 0 ? Math.min(text.length, m.index + 65_536) : endobj;
    const dictText = framed
      ? text.slice(objAt, o1 + l1) + text.slice(o2, stop)
      : text.slice(Math.max(0, objAt), Math.min(stop, Math.max(0, objAt) + 65_536));
    let field: string | null = null;
    if (objectNumber !== null) {
      const refRe = new RegExp(`/V\\s+${objectNumber}\\s+\\d+\\s+R\\b`);
      const direct = [...text.matchAll(new RegExp(refRe.source, 'g'))].at(-1);
      if (direct?.index !== undefined) {
        const start = text.lastIndexOf(' obj', direct.index);
        const end = text.indexOf('endobj', direct.index);
        field = stringValue(text.slice(Math.max(0, start), end < 0 ? undefined : end), 'T');
      }
      if (field === null) {
        compressed ??= objectStreamObjects(text, bytes);
        for (const obj of compressed.values()) if (refRe.test(obj)) field = stringValue(obj, 'T') ?? field;
      }
    }
    // A dictionary written directly under /Perms (/UR3 << … >>): Reader's usage rights, not a signer's signature.
    const before = text.slice(Math.max(0, m.index - 200), m.index);
    const usageRights =
      field === null &&
      (/\/UR3?\s*<<[^<>]*$/.test(before) ||
        (objectNumber !== null && new RegExp(`/UR3?\\s+${objectNumber}\\s+\\d+\\s+R\\b`).test(text)));
    const subFilter = /\/SubFilter\s*\/([^\s/<>[\]()]+)/.exec(dictText)?.[1] ?? null;
    found.set(key, {
      kind: usageRights ? 'usage rights' : 'field',
      field: field ?? (usageRights ? 'UR3 (usage rights)' : `signature ${found.size + 1}`),
      objectNumber,
      byteRange,
      cms,
      subFilter,
      documentTimestamp: /\/Type\s*\/DocTimeStamp\b/.test(dictText) || subFilter === 'ETSI.RFC3161',
      m: parsePdfDate(stringValue(dictText, 'M')),
      name: stringValue(dictText, 'Name'),
      reason: stringValue(dictText, 'Reason'),
      problems,
    });
  }
  return [...found.values()].sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
}
