import { createHash, createPrivateKey, sign as signWithKey, X509Certificate } from 'node:crypto';
import {
  PdfArray,
  PdfDict,
  PdfName,
  PdfNumber,
  PdfRef,
  PdfStream,
  PdfString,
  type PDF,
  type PdfObject,
} from '@libpdf/core';
import { assembleCms, signedAttributesFor, type CmsSignatureAlgorithm } from './cms';
import type { FieldSpec, StampInput, WidgetPlace } from './engine';
import { openForSigning, stampParty, subsetFonts } from './stamp';

/*
 * External (deferred) signing, in two steps with the prepared file stored in between:
 *
 * 1. prepareExternal() stamps the party's boxes exactly as LibPdfEngine.signParty does and appends, in the same
 *    incremental update, a signature field whose dictionary has its final /ByteRange and a zero-filled /Contents. It
 *    answers the SHA-256 of the bytes that /ByteRange covers: the messageDigest the detached CMS must carry (the
 *    InputHash sent to an Aadhaar eSign ESP; or, through signedAttributesFor(), what a USB token signs).
 * 2. embedExternal() writes the CMS (the ESP's as it came, or assembleCms() of the token's signature) as hex into
 *    /Contents. Nothing else changes, so the digest computed in step 1 still holds.
 *
 * Where /Contents is needs not be stored: locateContents() reads it back from the prepared bytes alone. The newest
 * signature dictionary is the one whose /ByteRange ends at the end of the file, and the gap its /ByteRange leaves is
 * exactly the `<…>` of /Contents. prepareExternal() also answers the same location, for callers that keep it.
 */

/** Bytes reserved for the CMS by default: the signer's certificate, a chain of three, and room to spare. */
export const DEFAULT_PLACEHOLDER_BYTES = 32_768;
/** [offset1, length1, offset2, length2]: offset1 is 0 and offset2 + length2 the file's length. */
export type ByteRange = [number, number, number, number];

/** The signature dictionary's content; the CMS comes later. */
export type ExternalSignatureSpec = FieldSpec;

/** Where the CMS goes: `offset` is the first hex digit of /Contents (after '<'), `hexLength` how many it holds. */
export interface ContentsSlot {
  byteRange: ByteRange;
  offset: number;
  hexLength: number;
}

export interface PreparedExternal {
  /** The document to store until the CMS comes: stamped, with the signature field and a zero-filled /Contents. */
  prepared: Uint8Array;
  /** SHA-256 of the bytes /ByteRange covers: the messageDigest the CMS must carry. */
  byteRangeDigest: Uint8Array;
  byteRange: ByteRange;
  /** The same as locateContents(prepared) answers. */
  contents: ContentsSlot;
}

/** The CMS is larger than the room reserved for it in /Contents. */
export class SignatureTooLargeError extends Error {
  constructor(cmsBytes: number, roomBytes: number) {
    super(`The signature (CMS of ${cmsBytes} bytes) does not fit the ${roomBytes} bytes reserved in /Contents.`);
    this.name = 'SignatureTooLargeError';
  }
}

const SUB_FILTER = 'ETSI.CAdES.detached';
/** Ten digits per number: room for any offset below 10 GB, patched in place once the offsets are known. */
const BYTE_RANGE_PLACEHOLDER = 9_999_999_999;
const MIN_PLACEHOLDER_BYTES = 1_024;
const MAX_PLACEHOLDER_BYTES = 1_048_576;
const ascii = (text: string) => new TextEncoder().encode(text);
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};
const [LT, GT, ZERO] = ['<', '>', '0'].map((c) => c.charCodeAt(0));

// ---- the PDF side ----

/**
 * Stamps the party's boxes and appends the signature field with a /Contents of `placeholderBytes` zero bytes, in one
 * incremental update (the engine's prepare step; kept as one call for the tests of this file). Refuses
 * (DocumentNotSignableError) a document that carries signatures but could only be rewritten; and encrypted documents,
 * whose /Contents would be encrypted with the rest.
 */
export async function prepareExternal(
  document: Uint8Array,
  stamp: StampInput,
  spec: ExternalSignatureSpec,
  placeholderBytes: number = DEFAULT_PLACEHOLDER_BYTES,
): Promise<PreparedExternal> {
  const pdf = await openForSigning(document);
  const widget = stampParty(pdf, stamp, spec.signingTime);
  return placeSignatureField(
    pdf,
    { ...spec, widget: spec.widget === undefined ? widget : spec.widget },
    placeholderBytes,
  );
}

/**
 * Appends, to the changes made to `pdf` so far, the signature field (merged with its widget: the given box, or an
 * invisible one on the first page) whose dictionary has its final /ByteRange and a zero-filled /Contents; saves the
 * whole as one incremental update and answers it with the SHA-256 the /ByteRange covers.
 */
export async function placeSignatureField(
  pdf: PDF,
  spec: FieldSpec,
  placeholderBytes: number = DEFAULT_PLACEHOLDER_BYTES,
): Promise<PreparedExternal> {
  if (
    !Number.isInteger(placeholderBytes) ||
    placeholderBytes < MIN_PLACEHOLDER_BYTES ||
    placeholderBytes > MAX_PLACEHOLDER_BYTES
  ) {
    throw new RangeError(
      `placeholderBytes must be an integer from ${MIN_PLACEHOLDER_BYTES} to ${MAX_PLACEHOLDER_BYTES}`,
    );
  }
  if (pdf.isEncrypted) throw new Error('External signing does not support encrypted documents.');
  const pages = pdf.getPages();
  if (!pages[0]) throw new Error('The document has no pages.');

  subsetFonts(pdf);
  // /ByteRange right before /Contents, as locatePlaceholder() expects.
  const dict = new PdfDict([
    ['Type', PdfName.of('Sig')],
    ['Filter', PdfName.of('Adobe.PPKLite')],
    ['SubFilter', PdfName.of(SUB_FILTER)],
    ['ByteRange', new PdfArray([0, ...Array<number>(3).fill(BYTE_RANGE_PLACEHOLDER)].map((n) => PdfNumber.of(n)))],
    ['Contents', new PdfString(new Uint8Array(placeholderBytes), 'hex')],
    ['M', PdfString.fromString(pdfDate(spec.signingTime))],
  ]);
  if (spec.name) dict.set('Name', PdfString.fromString(spec.name));
  if (spec.reason) dict.set('Reason', PdfString.fromString(spec.reason));
  if (spec.location) dict.set('Location', PdfString.fromString(spec.location));
  if (spec.contactInfo) dict.set('ContactInfo', PdfString.fromString(spec.contactInfo));
  const widget = spec.widget && pages[spec.widget.page - 1] ? spec.widget : null;
  addSignatureField(pdf, spec.fieldName, pdf.context.register(dict), widget);

  // A copy: the save may answer a view of the library's own buffer.
  const prepared = new Uint8Array(await pdf.save({ incremental: true }));
  const placeholder = locatePlaceholder(prepared, placeholderBytes);
  const byteRange: ByteRange = [0, placeholder.lt, placeholder.gt + 1, prepared.length - placeholder.gt - 1];
  const text = `0 ${byteRange
    .slice(1)
    .map((n) => String(n).padEnd(10, ' '))
    .join(' ')}`.padEnd(placeholder.byteRangeEnd - placeholder.byteRangeStart, ' ');
  if (text.length !== placeholder.byteRangeEnd - placeholder.byteRangeStart) throw new Error('ByteRange overflow');
  prepared.set(ascii(text), placeholder.byteRangeStart);

  const contents = locateContents(prepared);
  return { prepared, byteRangeDigest: byteRangeDigestOf(prepared, contents), byteRange, contents };
}

/**
 * Writes the CMS as hex into the prepared file's /Contents, padded with zeros; no other byte changes. Refuses a CMS
 * that does not fit (SignatureTooLargeError) and a file whose /Contents already holds one. It does not check the CMS:
 * messageDigestOf() answers what it signs, for the caller to compare with the digest it sent.
 */
export function embedExternal(prepared: Uint8Array, cmsDer: Uint8Array): Uint8Array {
  const slot = locateContents(prepared);
  if (cmsDer.length === 0 || cmsDer[0] !== 0x30) throw new Error('The signature is not a DER-encoded CMS ContentInfo.');
  const hex = Buffer.from(cmsDer).toString('hex');
  if (hex.length > slot.hexLength) throw new SignatureTooLargeError(cmsDer.length, slot.hexLength / 2);
  for (let i = slot.offset; i < slot.offset + slot.hexLength; i++) {
    if (prepared[i] !== ZERO) throw new Error('The document already holds this signature: /Contents is not empty.');
  }
  const signed = new Uint8Array(prepared);
  signed.set(ascii(hex), slot.offset);
  return signed;
}

/**
 * Where the CMS goes in a prepared (or signed) file, from its bytes alone: the signature dictionary whose /ByteRange
 * covers the file up to its end, the gap it leaves being `<` hex digits `>`.
 */
export function locateContents(pdf: Uint8Array): ContentsSlot {
  const text = latin1(pdf);
  for (let at = text.lastIndexOf('/ByteRange'); at > 0; at = text.lastIndexOf('/ByteRange', at - 1)) {
    const match = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at, at + 80));
    if (!match) continue;
    const byteRange = match.slice(1, 5).map(Number) as ByteRange;
    const [offset1, length1, offset2, length2] = byteRange;
    if (offset1 !== 0 || offset2 + length2 !== pdf.length || offset2 - length1 < 2) continue;
    if (pdf[length1] !== LT || pdf[offset2 - 1] !== GT) continue;
    const offset = length1 + 1;
    const hexLength = offset2 - 1 - offset;
    if (!/^[0-9a-fA-F]*$/.test(text.slice(offset, offset + hexLength))) continue;
    return { byteRange, offset, hexLength };
  }
  throw new Error('No signature dictionary whose /ByteRange covers the whole file: not a prepared document.');
}

/** SHA-256 of the bytes the newest /ByteRange covers (the digest prepareExternal answered, read back). */
export function byteRangeDigestOf(pdf: Uint8Array, slot: ContentsSlot = locateContents(pdf)): Uint8Array {
  const [offset1, length1, offset2, length2] = slot.byteRange;
  return sha256(pdf.subarray(offset1, offset1 + length1), pdf.subarray(offset2, offset2 + length2));
}

/** The placeholders of the dictionary just written: the last /ByteRange still holding the placeholder numbers. */
function locatePlaceholder(pdf: Uint8Array, placeholderBytes: number) {
  const text = latin1(pdf);
  const n = String(BYTE_RANGE_PLACEHOLDER);
  const pattern = new RegExp(`/ByteRange\\s*\\[(\\s*0\\s+${n}\\s+${n}\\s+${n}\\s*)\\]\\s*/Contents\\s*<(0*)>`, 'g');
  let found: RegExpExecArray | null = null;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) found = m;
  if (!found || found[2].length !== placeholderBytes * 2) {
    throw new Error('The signature placeholder was not found in the saved document.');
  }
  const byteRangeStart = found.index + found[0].indexOf('[') + 1;
  const lt = found.index + found[0].length - found[2].length - 2;
  return { byteRangeStart, byteRangeEnd: byteRangeStart + found[1].length, lt, gt: lt + found[2].length + 1 };
}

/**
 * A new signature field merged with its widget, as @libpdf/core's own sign() makes it (the field name must be new).
 * With a place (the signer's first box): the widget is that box on that page, listed in the page's /Annots with an
 * empty appearance (the stamp itself is in the page's content), so clicking it in a reader opens the signature's
 * details. Without: an invisible widget on the first page.
 */
function addSignatureField(pdf: PDF, name: string, value: PdfRef, place: WidgetPlace | null): void {
  const form = pdf.getOrCreateForm();
  if (form.getField(name)) throw new Error(`The document already has a field named "${name}".`);
  const created = form.createSignatureField(name);
  const field = created.getDict();
  const page = pdf.getPages()[(place?.page ?? 1) - 1];
  field.set('V', value);
  field.delete('Kids');
  field.set('Type', PdfName.of('Annot'));
  field.set('Subtype', PdfName.of('Widget'));
  field.set('F', PdfNumber.of(132)); // Print | Locked
  field.set('P', page.ref);
  if (!place) {
    field.set('Rect', new PdfArray([0, 0, 0, 0].map((v) => PdfNumber.of(v))));
    return;
  }
  const rect = [place.x, place.y, place.x + place.width, place.y + place.height];
  field.set('Rect', new PdfArray(rect.map((v) => PdfNumber.of(v))));
  const appearance = pdf.context.register(
    PdfStream.fromDict(
      {
        Type: PdfName.of('XObject'),
        Subtype: PdfName.of('Form'),
        BBox: new PdfArray([0, 0, place.width, place.height].map((v) => PdfNumber.of(v))),
      },
      new Uint8Array(0),
    ),
  );
  field.set('AP', new PdfDict([['N', appearance]]));
  // The field's own reference, for the page's /Annots (the library keeps it on the field it made).
  const ref = (created as unknown as { ref?: PdfRef | null }).ref;
  if (!(ref instanceof PdfRef)) throw new Error('The signature field has no object reference.');
  const resolve = (r: PdfRef) => pdf.context.resolve(r);
  const annots = page.dict.get('Annots', resolve);
  const existing =
    annots instanceof PdfArray ? Array.from({ length: annots.length }, (_, i) => annots.at(i) as PdfObject) : [];
  page.dict.set('Annots', new PdfArray([...existing, ref]));
}

/** D:YYYYMMDDHHmmSSZ, in UTC, as @libpdf/core writes /M. */
function pdfDate(date: Date): string {
  return `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

// ---- the CMS side: cms.ts ----

export { assembleCms, messageDigestOf, signedAttributesFor, type CmsParts, type CmsSignatureAlgorithm } from './cms';

/**
 * Signs a digest with a private key held here (RSA, or EC P-256) and answers the CMS: what a sandbox ESP answers, and
 * what the tests embed.
 */
export function signDigestCms(digest: Uint8Array, keyPem: string, certPem: string, chainPems: string[]): Uint8Array {
  const key = createPrivateKey(keyPem);
  let signatureAlgorithm: CmsSignatureAlgorithm;
  if (key.asymmetricKeyType === 'rsa') signatureAlgorithm = 'RSA-SHA256';
  else if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    signatureAlgorithm = 'ECDSA-SHA256';
  else throw new Error(`Unsupported key type ${key.asymmetricKeyType}: use an RSA or an EC P-256 key`);
  const certificateDer = new Uint8Array(new X509Certificate(certPem).raw);
  const signedAttributesDer = signedAttributesFor(digest, certificateDer);
  return assembleCms({
    digest,
    signedAttributesDer,
    signature: new Uint8Array(signWithKey('sha256', signedAttributesDer, { key, dsaEncoding: 'der' })),
    certificateDer,
    chainDers: chainPems.map((pem) => new Uint8Array(new X509Certificate(pem).raw)),
    signatureAlgorithm,
  });
}
