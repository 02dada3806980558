import {
  endsToken,
  isDict,
  nameOf,
  type PdfObjects,
  PdfRef,
  sameValue,
  type PdfDict,
  type PdfValue,
} from '@esign/pdf-syntax';

/**
 * What long-term validation stores outside the signatures, read with @esign/pdf-syntax's objects by number (the newest
 * definition winning, object streams included): the Document Security Store (ISO 32000-2 §12.8.4.3: /DSS in the
 * catalog, with /Certs, /OCSPs and /CRLs arrays of streams), and whether the updates after the last signature hold
 * only such validation data.
 */

/** The validation data a document's DSS carries (every DSS version found, merged; duplicates dropped). */
export interface DssContent {
  present: boolean;
  certificates: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
}

/**
 * Where the file's DSS dictionaries are, in every revision: the numbers of DSS objects (a catalog's /DSS reference, or
 * a /Type /DSS object) and the DSS dictionaries written directly in a catalog, plain or compressed.
 */
function dssReferences(objects: PdfObjects): { numbers: number[]; direct: PdfDict[] } {
  const numbers = new Set<number>();
  const direct: PdfDict[] = [];
  const take = (num: number, value: PdfValue | undefined) => {
    if (!isDict(value)) return;
    if (nameOf(value.get('Type')) === 'DSS') numbers.add(num);
    const dss = value.get('DSS');
    if (dss instanceof PdfRef) numbers.add(dss.num);
    else if (isDict(dss)) direct.push(dss);
  };
  const buf = objects.buf;
  const seen = new Set<number>();
  for (let at = buf.indexOf('/DSS'); at >= 0; at = buf.indexOf('/DSS', at + 4)) {
    if (!endsToken(buf[at + 4])) continue;
    const header = objects.headerBefore(at);
    if (!header || seen.has(header.offset)) continue;
    seen.add(header.offset);
    take(header.num, objects.at(header).value);
  }
  for (const member of objects.searchObjectStreams(/\/DSS\b/)) take(member.num, objects.compressedObject(member).value);
  return { numbers: [...numbers], direct };
}

/** The streams an array value (direct or referenced) points at, decoded. */
function streamsOf(objects: PdfObjects, value: PdfValue | undefined): Buffer[] {
  const out: Buffer[] = [];
  const array = objects.resolve(value);
  if (!Array.isArray(array)) return out;
  for (const item of array) {
    if (!(item instanceof PdfRef)) continue;
    const object = objects.get(item.num);
    const data = object ? objects.streamData(object) : null;
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
export function readDss(objects: PdfObjects): DssContent {
  const { numbers, direct } = dssReferences(objects);
  const dicts = [...numbers.map((n) => objects.get(n)?.value), ...direct].filter(isDict);
  const content: DssContent = { present: numbers.length + direct.length > 0, certificates: [], ocsps: [], crls: [] };
  for (const dict of dicts) {
    content.certificates.push(...streamsOf(objects, dict.get('Certs')));
    content.ocsps.push(...streamsOf(objects, dict.get('OCSPs')));
    content.crls.push(...streamsOf(objects, dict.get('CRLs')));
  }
  return {
    present: content.present,
    certificates: unique(content.certificates),
    ocsps: unique(content.ocsps),
    crls: unique(content.crls),
  };
}

/** Every object a value reaches through references (the DSS's arrays, its VRI dictionaries and their streams). */
function reachable(objects: PdfObjects, value: PdfValue | undefined, seen: Set<number>): void {
  if (value instanceof PdfRef) {
    if (seen.has(value.num)) return;
    seen.add(value.num);
    const object = objects.get(value.num);
    if (object && !object.data) reachable(objects, object.value, seen);
  } else if (Array.isArray(value)) for (const item of value) reachable(objects, item, seen);
  else if (isDict(value)) for (const item of value.values()) reachable(objects, item, seen);
}

/** Two catalogs that differ at most by /DSS and /Extensions (which a PAdES writer may add). */
function sameButValidationEntries(a: PdfValue | undefined, b: PdfDict): boolean {
  if (!isDict(a)) return false;
  const keys = (d: PdfDict) => [...d.keys()].filter((k) => k !== 'DSS' && k !== 'Extensions');
  const ka = keys(a);
  return ka.length === keys(b).length && ka.every((k) => b.has(k) && sameValue(a.get(k), b.get(k)));
}

/**
 * Do the updates in [from, end of file) add nothing but validation data: DSS dictionaries and what they reference,
 * a catalog that differs from its previous version only by /DSS (and the /Extensions a PAdES writer may add), and
 * the updates' own cross-reference streams? ETSI EN 319 142-1 allows such updates after the signatures.
 */
export function onlyValidationData(objects: PdfObjects, bytes: Buffer, from: number): boolean {
  const defined = objects.definedBetween(from, bytes.length);
  if (!defined.length) return false;
  const allowed = new Set<number>();
  const { numbers, direct } = dssReferences(objects);
  for (const n of numbers) reachable(objects, new PdfRef(n, 0), allowed);
  for (const dict of direct) reachable(objects, dict, allowed);
  let dssSeen = false;
  for (const object of defined) {
    const value = object.value;
    const type = isDict(value) ? nameOf(value.get('Type')) : undefined;
    if (type === 'XRef') continue;
    if (type === 'DSS') {
      dssSeen = true;
      continue;
    }
    if (type === 'Catalog' && isDict(value)) {
      const before = objects.previous(object.num, object.offset);
      if (!before || !sameButValidationEntries(before.value, value)) return false;
      dssSeen ||= value.has('DSS');
      continue;
    }
    if (!allowed.has(object.num)) return false;
  }
  return dssSeen;
}
