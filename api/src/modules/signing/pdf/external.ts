import {
  createHash,
  createPrivateKey,
  sign as signWithKey,
  verify as verifySignature,
  X509Certificate,
} from 'node:crypto';
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfString, type PDF, type PdfRef } from '@libpdf/core';
import { Attribute, ContentInfo, id_data, id_signedData, SignedData } from '@peculiar/asn1-cms';
import { AsnArray, AsnConvert, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import type { SignatureSpec, StampInput } from './engine';
import { openForSigning, stampParty, subsetFonts } from './libpdf-engine';

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

/** The signature dictionary's content; the CMS comes later. `name` becomes /Name (the signer's name, for display). */
export interface ExternalSignatureSpec extends Omit<SignatureSpec, 'signer'> {
  name?: string | null;
}

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
 * incremental update. Refuses (DocumentNotSignableError) a document that carries signatures but could only be
 * rewritten, as the engine does; and encrypted documents, whose /Contents would be encrypted with the rest.
 */
export async function prepareExternal(
  document: Uint8Array,
  stamp: StampInput,
  spec: ExternalSignatureSpec,
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
  const pdf = await openForSigning(document);
  if (pdf.isEncrypted) throw new Error('External signing does not support encrypted documents.');
  const firstPage = pdf.getPages()[0];
  if (!firstPage) throw new Error('The document has no pages.');

  stampParty(pdf, stamp);
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
  addSignatureField(pdf, spec.fieldName, firstPage.ref, pdf.context.register(dict));

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
 * A new signature field merged with its invisible widget on the first page, as @libpdf/core's own sign() makes it
 * (PDFSignature.prepareSignatureField): the field name must be new.
 */
function addSignatureField(pdf: PDF, name: string, page: PdfRef, value: PdfRef): void {
  const form = pdf.getOrCreateForm();
  if (form.getField(name)) throw new Error(`The document already has a field named "${name}".`);
  const field = form.createSignatureField(name).getDict();
  field.set('V', value);
  field.delete('Kids');
  field.set('Type', PdfName.of('Annot'));
  field.set('Subtype', PdfName.of('Widget'));
  field.set('F', PdfNumber.of(132)); // Print | Locked
  field.set('P', page);
  field.set('Rect', new PdfArray([0, 0, 0, 0].map((v) => PdfNumber.of(v))));
}

/** D:YYYYMMDDHHmmSSZ, in UTC, as @libpdf/core writes /M. */
function pdfDate(date: Date): string {
  return `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

// ---- the CMS side ----

const OID = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
};

@AsnType({ type: AsnTypeTypes.Choice })
class ObjectIdentifierValue {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier }) value = '';
  constructor(value = '') {
    this.value = value;
  }
}

@AsnType({ type: AsnTypeTypes.Set, itemType: Attribute })
class AttributeSet extends AsnArray<Attribute> {
  constructor(items?: Attribute[]) {
    super(items);
    Object.setPrototypeOf(this, AttributeSet.prototype);
  }
}

/**
 * The DER of PAdES B-B signed attributes, encoded as a SET (tag 0x31): what the signer's key signs. contentType (id-data),
 * messageDigest, and signing-certificate-v2 (an ESSCertIDv2 with the certificate's SHA-256 and issuer/serial); no
 * signingTime (PAdES puts the time in the signature dictionary's /M).
 */
export function signedAttributesFor(digest: Uint8Array, certificateDer: Uint8Array): Uint8Array {
  if (digest.length !== 32) throw new Error(`A SHA-256 digest has 32 bytes, not ${digest.length}.`);
  const cert = certificateParts(certificateDer);
  const essCertIdV2 = der(
    0x30,
    der(0x04, sha256(certificateDer)),
    der(0x30, der(0x30, der(0xa4, cert.issuer)), cert.serial),
  );
  const signingCertificateV2 = der(0x30, der(0x30, essCertIdV2));
  const attribute = (type: string, value: ArrayBuffer | Uint8Array) =>
    new Uint8Array(AsnConvert.serialize(new Attribute({ attrType: type, attrValues: [toArrayBuffer(value)] })));
  const attributes = [
    attribute(OID.contentType, AsnConvert.serialize(new ObjectIdentifierValue(id_data))),
    attribute(OID.messageDigest, AsnConvert.serialize(new OctetString(digest))),
    attribute(OID.signingCertificateV2, signingCertificateV2),
  ];
  // DER orders a SET OF by the encodings of its elements.
  return der(0x31, ...attributes.sort(compareDer));
}

export type CmsSignatureAlgorithm = 'RSA-SHA256' | 'ECDSA-SHA256';

export interface CmsParts {
  /** When given, the signed attributes' messageDigest must equal it. */
  digest?: Uint8Array;
  /** As signedAttributesFor() answered them and the key signed them (tag 0x31); embedded byte for byte. */
  signedAttributesDer: Uint8Array;
  /** RSA PKCS#1 v1.5; ECDSA as DER or as the raw r‖s a PKCS#11 token answers (converted to DER). */
  signature: Uint8Array;
  certificateDer: Uint8Array;
  /** Issuers up to the root, without the signer's own certificate. */
  chainDers: Uint8Array[];
  signatureAlgorithm: CmsSignatureAlgorithm;
}

/**
 * A detached CMS ContentInfo(SignedData) over SHA-256 with one SignerInfo (sid issuerAndSerialNumber, the signed
 * attributes and the signature as given) and the certificates. The signature is verified with the certificate's key
 * first, so a token's wrong key or garbled answer fails here rather than in the reader.
 */
export function assembleCms(parts: CmsParts): Uint8Array {
  const { signedAttributesDer, certificateDer, signatureAlgorithm } = parts;
  if (signedAttributesDer[0] !== 0x31)
    throw new Error('The signed attributes must be DER-encoded as a SET (tag 0x31).');
  const attributes = AsnConvert.parse(signedAttributesDer, AttributeSet);
  const digestAttr = attributes.find((a) => a.attrType === OID.messageDigest);
  if (!digestAttr || !attributes.some((a) => a.attrType === OID.contentType)) {
    throw new Error('The signed attributes lack contentType or messageDigest.');
  }
  const signedDigest = new Uint8Array(AsnConvert.parse(digestAttr.attrValues[0], OctetString).buffer);
  if (parts.digest && !Buffer.from(signedDigest).equals(Buffer.from(parts.digest))) {
    throw new Error('The signed attributes carry another messageDigest than the document digest.');
  }

  const certificate = new X509Certificate(certificateDer);
  const keyType = certificate.publicKey.asymmetricKeyType;
  if ((signatureAlgorithm === 'RSA-SHA256') !== (keyType === 'rsa') || !['rsa', 'ec'].includes(keyType ?? '')) {
    throw new Error(`A ${signatureAlgorithm} signature cannot come from the certificate's ${keyType} key.`);
  }
  const signature = signatureAlgorithm === 'ECDSA-SHA256' ? ecdsaDer(parts.signature) : parts.signature;
  if (!verifySignature('sha256', signedAttributesDer, { key: certificate.publicKey, dsaEncoding: 'der' }, signature)) {
    throw new Error("The signature does not verify with the certificate's key over the signed attributes.");
  }

  const cert = certificateParts(certificateDer);
  const sha256Algorithm = algorithm(OID.sha256);
  const signerInfo = der(
    0x30,
    der(0x02, Uint8Array.of(1)),
    der(0x30, cert.issuer, cert.serial),
    sha256Algorithm,
    Uint8Array.from([0xa0, ...signedAttributesDer.subarray(1)]), // [0] IMPLICIT: the same bytes, context tag
    signatureAlgorithm === 'RSA-SHA256' ? algorithm(OID.sha256WithRsa, true) : algorithm(OID.ecdsaWithSha256),
    der(0x04, signature),
  );
  const certificates = [certificateDer, ...parts.chainDers.filter((c) => !Buffer.from(c).equals(certificateDer))];
  const signedData = der(
    0x30,
    der(0x02, Uint8Array.of(1)),
    der(0x31, sha256Algorithm),
    der(0x30, new Uint8Array(AsnConvert.serialize(new ObjectIdentifierValue(id_data)))),
    der(0xa0, ...certificates),
    der(0x31, signerInfo),
  );
  return new Uint8Array(
    AsnConvert.serialize(new ContentInfo({ contentType: id_signedData, content: toArrayBuffer(signedData) })),
  );
}

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

/** The messageDigest a CMS's (first) signer signed: an ESP's answer must carry the digest that was sent. */
export function messageDigestOf(cmsDer: Uint8Array): Uint8Array {
  const info = AsnConvert.parse(cmsDer, ContentInfo);
  if (info.contentType !== id_signedData) throw new Error('The CMS is not SignedData.');
  const signerInfo = AsnConvert.parse(info.content, SignedData).signerInfos[0];
  const attribute = signerInfo?.signedAttrs?.find((a) => a.attrType === OID.messageDigest);
  if (!attribute) throw new Error('The CMS has no signer with a messageDigest.');
  return new Uint8Array(AsnConvert.parse(attribute.attrValues[0], OctetString).buffer);
}

// ---- DER ----

/** One DER element: tag, definite length, contents. */
function der(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const length = contents.reduce((sum, c) => sum + c.length, 0);
  const lengthBytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest % 256);
  const header = length < 0x80 ? [tag, length] : [tag, 0x80 | lengthBytes.length, ...lengthBytes];
  const out = new Uint8Array(header.length + length);
  out.set(header);
  let at = header.length;
  for (const c of contents) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

interface Element {
  tag: number;
  /** Offsets in the buffer: the whole element, and its contents. */
  start: number;
  contentStart: number;
  end: number;
}

function readElement(bytes: Uint8Array, start: number, limit = bytes.length): Element {
  if (start + 2 > limit) throw new Error('Truncated DER');
  const tag = bytes[start];
  let length = bytes[start + 1];
  let contentStart = start + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || contentStart + count > limit) throw new Error('Unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[contentStart + i];
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > limit) throw new Error('Truncated DER');
  return { tag, start, contentStart, end };
}

function childrenOf(bytes: Uint8Array, parent: Element): Element[] {
  const children: Element[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = readElement(bytes, at, parent.end);
    children.push(child);
    at = child.end;
  }
  return children;
}

/** The issuer Name and serialNumber INTEGER, as the certificate encodes them (byte for byte). */
function certificateParts(certificateDer: Uint8Array): { issuer: Uint8Array; serial: Uint8Array } {
  try {
    const certificate = readElement(certificateDer, 0);
    const [tbs] = childrenOf(certificateDer, certificate);
    const fields = childrenOf(certificateDer, tbs);
    const rest = fields[0]?.tag === 0xa0 ? fields.slice(1) : fields; // [0] version
    const [serial, , issuer] = rest;
    if (certificate.tag !== 0x30 || tbs.tag !== 0x30 || serial?.tag !== 0x02 || issuer?.tag !== 0x30)
      throw new Error('unexpected structure');
    const slice = (e: Element) => certificateDer.slice(e.start, e.end);
    return { issuer: slice(issuer), serial: slice(serial) };
  } catch (error) {
    throw new Error(`Not a DER-encoded X.509 certificate (${(error as Error).message}).`);
  }
}

function algorithm(oid: string, nullParameters = false): Uint8Array {
  const identifier = new AlgorithmIdentifier({ algorithm: oid, ...(nullParameters ? { parameters: null } : {}) });
  return new Uint8Array(AsnConvert.serialize(identifier));
}

/** ECDSA-Sig-Value DER as it is, or built from a P-256 token's raw r‖s (64 bytes). */
function ecdsaDer(signature: Uint8Array): Uint8Array {
  try {
    const sequence = readElement(signature, 0);
    const values = childrenOf(signature, sequence);
    if (
      sequence.tag === 0x30 &&
      sequence.end === signature.length &&
      values.length === 2 &&
      values.every((v) => v.tag === 0x02)
    )
      return signature;
  } catch {
    // not DER: raw r‖s below
  }
  if (signature.length !== 64) throw new Error('An ECDSA P-256 signature is DER or 64 bytes of r‖s.');
  const integer = (value: Uint8Array) => {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const trimmed = value.subarray(start);
    return der(0x02, trimmed[0] & 0x80 ? Uint8Array.from([0, ...trimmed]) : trimmed);
  };
  return der(0x30, integer(signature.subarray(0, 32)), integer(signature.subarray(32)));
}

/** X.690: a SET OF in DER lists its elements by their encodings, the shorter as if padded with zeros. */
function compareDer(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff) return diff;
  }
  return 0;
}

function toArrayBuffer(bytes: ArrayBuffer | Uint8Array): ArrayBuffer {
  if (bytes instanceof ArrayBuffer) return bytes;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
