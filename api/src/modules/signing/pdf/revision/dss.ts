import { deflateSync } from 'node:zlib';
import {
  decodeStream,
  isDict,
  nameOf,
  PdfName,
  PdfRef,
  PdfStreamValue,
  PdfString,
  type PdfDict,
  type PdfValue,
} from '@esign/pdf-syntax';
import { sha1Hex, type SignatureEvidence } from '../../evidence/validation-data';
import { streamOf } from './document';
import type { Revision } from './revision';
import { pdfDate } from './signature';

/*
 * The Document Security Store (ISO 32000-2, 12.8.4.3; ETSI EN 319 142-1's B-LT) written as a revision of its own
 * (issue 23): the new DSS dictionary, the certificates, OCSP responses and CRLs not in the document yet, a VRI entry
 * per signature, and the catalog naming it; a DSS the document has already is kept (its streams referred to, its VRI
 * entries copied). Nothing else of the document is read or written.
 */

const MAX_FIELD_DEPTH = 32;
/** Streams at least this long are compressed, as @libpdf/core wrote the DSS. */
const COMPRESS_FROM = 512;

/** The /Contents (as stored, padding included) of every signed signature field: signatures and document timestamps. */
export function signatureContents(revision: Revision): Uint8Array[] {
  const catalog = revision.value(revision.structure.trailer.root.num);
  const form = isDict(catalog) ? revision.entry(catalog, 'AcroForm') : undefined;
  const fields = isDict(form) ? revision.entry(form, 'Fields') : undefined;
  const found: Uint8Array[] = [];
  const seen = new Set<number>();
  const visit = (item: PdfValue, inheritedType: string | undefined, depth: number) => {
    if (depth > MAX_FIELD_DEPTH) return;
    if (item instanceof PdfRef) {
      if (seen.has(item.num)) return;
      seen.add(item.num);
    }
    const field = revision.resolve(item);
    if (!isDict(field)) return;
    const type = nameOf(revision.entry(field, 'FT')) ?? inheritedType;
    const value = revision.entry(field, 'V');
    if (type === 'Sig' && isDict(value)) {
      const contents = revision.entry(value, 'Contents');
      if (contents instanceof PdfString && contents.bytes.length) found.push(contents.bytes);
    }
    const kids = revision.entry(field, 'Kids');
    if (Array.isArray(kids)) for (const kid of kids) visit(kid, type, depth + 1);
  };
  if (Array.isArray(fields)) for (const field of fields) visit(field, undefined, 0);
  return found;
}

/** The data of the streams an existing DSS array lists, by SHA-1, with their references. */
function existingStreams(revision: Revision, array: PdfValue | undefined): Map<string, PdfRef> {
  const known = new Map<string, PdfRef>();
  if (!Array.isArray(array)) return known;
  for (const item of array) {
    if (!(item instanceof PdfRef)) continue;
    const stream = streamOf(revision.structure, item.num);
    if (!stream) continue;
    try {
      known.set(sha1Hex(decodeStream(stream.data, stream.dict)), item);
    } catch {
      // An unreadable stream is kept as it is, not matched.
      known.set(`unreadable:${item.num}`, item);
    }
  }
  return known;
}

/** Adds the DSS to the revision (the catalog's /DSS), merged with the document's own. */
export function writeDss(revision: Revision, evidence: SignatureEvidence[], at: Date): void {
  const catalog = revision.catalog();
  const old = revision.resolve(catalog.get('DSS'));
  const oldDss: PdfDict = isDict(old) ? old : new Map();
  const pools = {
    Certs: existingStreams(revision, revision.resolve(oldDss.get('Certs'))),
    OCSPs: existingStreams(revision, revision.resolve(oldDss.get('OCSPs'))),
    CRLs: existingStreams(revision, revision.resolve(oldDss.get('CRLs'))),
  };
  const refOf = (pool: Map<string, PdfRef>, data: Uint8Array): PdfRef => {
    const key = sha1Hex(data);
    let ref = pool.get(key);
    if (!ref) {
      const raw = Buffer.from(data);
      const compressed = raw.length >= COMPRESS_FROM ? deflateSync(raw) : null;
      const body =
        compressed && compressed.length < raw.length
          ? new PdfStreamValue(new Map([['Filter', new PdfName('FlateDecode')]]), compressed)
          : new PdfStreamValue(new Map(), raw);
      ref = revision.add(body);
      pool.set(key, ref);
    }
    return ref;
  };
  const oldVri = revision.resolve(oldDss.get('VRI'));
  const vri: PdfDict = isDict(oldVri) ? new Map(oldVri) : new Map();
  const time = new PdfString(Buffer.from(pdfDate(at), 'latin1'));
  for (const signature of evidence) {
    const certs = signature.certificates.map((der) => refOf(pools.Certs, der));
    const ocsps = signature.ocsps.map((der) => refOf(pools.OCSPs, der));
    const crls = signature.crls.map((der) => refOf(pools.CRLs, der));
    if (!vri.has(signature.vriKey)) {
      const entry: PdfDict = new Map();
      if (certs.length) entry.set('Cert', unique(certs));
      if (ocsps.length) entry.set('OCSP', unique(ocsps));
      if (crls.length) entry.set('CRL', unique(crls));
      entry.set('TU', time);
      vri.set(signature.vriKey, entry);
    }
    for (const token of signature.timestamps) {
      const key = sha1Hex(token);
      if (!vri.has(key)) vri.set(key, new Map([['TU', time]]));
    }
  }
  const dss: PdfDict = new Map([['Type', new PdfName('DSS')]]);
  for (const [key, pool] of Object.entries(pools)) if (pool.size) dss.set(key, [...pool.values()]);
  if (vri.size) dss.set('VRI', vri);
  catalog.set('DSS', revision.add(dss));
}

const unique = (refs: PdfRef[]): PdfRef[] => [...new Map(refs.map((r) => [r.num, r])).values()];
