import { createHash, createPrivateKey, sign as signWithKey, X509Certificate } from 'node:crypto';
import { assembleCms, signedAttributesFor, type CmsSignatureAlgorithm } from './cms';
import type { FieldSpec, StampInput } from './engine';
import { RevisionCanvas } from './revision/canvas';
import { revisable } from './revision/revisable';
import { Revision } from './revision/revision';
import { placeSignature, writeSigned } from './revision/signature';
import { stampParty } from './stamp';

/*
 * External (deferred) signing, in two steps with the prepared file stored in between:
 *
 * 1. prepareExternal() stamps the party's boxes exactly as the engine's prepareParty does and appends, in the same
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
 * incremental update: the engine's prepare step (incremental-engine.ts), kept as one call for the tests of this file.
 * Refuses a document it cannot append to (revision/document.ts says when).
 */
export async function prepareExternal(
  document: Uint8Array,
  stamp: StampInput,
  spec: ExternalSignatureSpec,
  placeholderBytes: number = DEFAULT_PLACEHOLDER_BYTES,
): Promise<PreparedExternal> {
  const revision = new Revision(await revisable(document));
  const canvas = new RevisionCanvas(revision);
  const widget = stampParty(canvas, stamp, spec.signingTime);
  canvas.finish();
  const placed = placeSignature(revision, spec, spec.widget === undefined ? widget : spec.widget, placeholderBytes);
  const written = writeSigned(revision, placed);
  const prepared = new Uint8Array(Buffer.concat([written.base.bytes, written.update]));
  const contents = locateContents(prepared);
  return { prepared, byteRangeDigest: written.digest, byteRange: contents.byteRange, contents };
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

/**
 * The document timestamp just added must hash to what its token was asked for. A kill test once found a sealed file
 * whose archive timestamp's imprint did not match its /ByteRange (under the earlier @libpdf/core path; see
 * ARCHITECTURE.md); a file like that is never stored: the seal fails, and its job runs again with a new timestamp.
 */
export function assertTimestampCovers(document: Uint8Array, digest: Uint8Array | null): void {
  const covered = byteRangeDigestOf(document);
  if (!digest || Buffer.compare(Buffer.from(covered), Buffer.from(digest)) !== 0)
    throw new Error('The document timestamp does not cover the bytes it was made for; the seal will run again.');
}
