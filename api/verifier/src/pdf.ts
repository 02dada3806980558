import { PdfObjects, PdfString, textOf, valueAt, type PdfValue } from '@esign/pdf-syntax';

/**
 * Just enough PDF reading for the verifier: the signature dictionaries (those with /ByteRange and /Contents, which a
 * PDF must keep as plain bytes in the file since /ByteRange points at them), their fields' names (the field may sit in
 * a compressed object stream), and where each revision ends (%%EOF). Values, strings and object streams are read with
 * @esign/pdf-syntax; the DSS is read in `pdf-objects.ts`.
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

/** The text of the string value of `/Key (…)` or `/Key <…>` in a dictionary's text; null when there is none. */
export function stringValue(dict: string, key: string): string | null {
  const at = new RegExp(`/${key}\\s*([(<])`).exec(dict);
  if (!at) return null;
  const value = valueAt(Buffer.from(dict, 'latin1'), at.index + at[0].length - 1);
  return value instanceof PdfString ? textOf(value) : null;
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

/** A field dictionary's partial name (/T). */
const titleOf = (value: PdfValue | undefined): string | null => {
  const title = value instanceof Map ? value.get('T') : undefined;
  return title instanceof PdfString ? textOf(title) : null;
};

/**
 * Every signature dictionary holding a /ByteRange, oldest (smallest coverage) first. `objects`: the file's objects
 * when the caller has them already.
 */
export function findSignatures(bytes: Buffer, objects?: PdfObjects): PdfSignature[] {
  const text = latin1(bytes);
  const found = new Map<string, PdfSignature>();
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
      // The field whose /V is the dictionary: written plainly (the newest such), else in an object stream.
      objects ??= new PdfObjects(bytes);
      const refRe = new RegExp(`/V\\s+${objectNumber}\\s+\\d+\\s+R\\b`);
      const direct = [...text.matchAll(new RegExp(refRe.source, 'g'))].at(-1);
      const header = direct?.index === undefined ? undefined : objects.headerBefore(direct.index);
      if (header) field = titleOf(objects.at(header).value);
      if (field === null) {
        for (const member of objects.searchObjectStreams(refRe))
          field = titleOf(objects.compressedObject(member).value) ?? field;
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
