/** The little DER the token signer needs: ECDSA signature encoding, PKCS#1 DigestInfo, a certificate's key usage. */

/** DigestInfo header for SHA-256 (RFC 8017 §9.2 note 1): prepend to the 32-byte digest for CKM_RSA_PKCS. */
const SHA256_DIGEST_INFO_PREFIX = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** PKCS#1 v1.5 DigestInfo of a SHA-256 digest, what CKM_RSA_PKCS must sign when the token lacks CKM_SHA256_RSA_PKCS. */
export function sha256DigestInfo(digest: Uint8Array): Buffer {
  if (digest.length !== 32) throw new Error(`A SHA-256 digest has 32 bytes, not ${digest.length}`);
  return Buffer.concat([SHA256_DIGEST_INFO_PREFIX, digest]);
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function encodeUnsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  let body = Buffer.from(magnitude.subarray(start));
  if (body.length === 0) body = Buffer.from([0]);
  if (body[0] & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return Buffer.concat([Buffer.from([0x02]), encodeLength(body.length), body]);
}

/**
 * PKCS#11 CKM_ECDSA returns r || s, each as long as the curve order; CMS and X.509 want
 * ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 5753 §7.2, RFC 3279 §2.2.3).
 */
export function ecdsaRawToDer(raw: Uint8Array): Buffer {
  if (raw.length === 0 || raw.length % 2 !== 0) {
    throw new Error(`An ECDSA signature r||s has an even, non-zero length, not ${raw.length}`);
  }
  const half = raw.length / 2;
  const body = Buffer.concat([encodeUnsignedInteger(raw.subarray(0, half)), encodeUnsignedInteger(raw.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), encodeLength(body.length), body]);
}

interface Tlv {
  tag: number;
  contentStart: number;
  end: number;
}

function readTlv(der: Uint8Array, offset: number, limit: number): Tlv {
  if (offset + 2 > limit) throw new Error('Truncated DER');
  const tag = der[offset];
  if ((tag & 0x1f) === 0x1f) throw new Error('Multi-byte DER tags are not supported');
  let length = der[offset + 1];
  let contentStart = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || contentStart + count > limit) throw new Error('Bad DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[contentStart + i];
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > limit) throw new Error('Truncated DER');
  return { tag, contentStart, end };
}

function childrenOf(der: Uint8Array, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let offset = parent.contentStart; offset < parent.end;) {
    const child = readTlv(der, offset, parent.end);
    children.push(child);
    offset = child.end;
  }
  return children;
}

/** The key usage bits of RFC 5280 §4.2.1.3 that matter to picking the signing certificate on a token. */
export interface KeyUsage {
  digitalSignature: boolean;
  nonRepudiation: boolean;
  keyEncipherment: boolean;
  keyCertSign: boolean;
}

const KEY_USAGE_OID = Buffer.from([0x55, 0x1d, 0x0f]); // 2.5.29.15

/** The certificate's key usage extension, or undefined when it has none (any usage allowed). */
export function certificateKeyUsage(certificateDer: Uint8Array): KeyUsage | undefined {
  const certificate = readTlv(certificateDer, 0, certificateDer.length);
  const [tbs] = childrenOf(certificateDer, certificate);
  if (!tbs || tbs.tag !== 0x30) throw new Error('Not an X.509 certificate');
  const extensionsWrapper = childrenOf(certificateDer, tbs).find((field) => field.tag === 0xa3);
  if (!extensionsWrapper) return undefined;
  const [extensions] = childrenOf(certificateDer, extensionsWrapper);
  if (!extensions) return undefined;
  for (const extension of childrenOf(certificateDer, extensions)) {
    const fields = childrenOf(certificateDer, extension);
    const oid = fields[0];
    if (!oid || oid.tag !== 0x06) continue;
    if (!Buffer.from(certificateDer.subarray(oid.contentStart, oid.end)).equals(KEY_USAGE_OID)) continue;
    const value = fields[fields.length - 1];
    if (value.tag !== 0x04) return undefined;
    const bitString = readTlv(certificateDer, value.contentStart, value.end);
    if (bitString.tag !== 0x03 || bitString.end - bitString.contentStart < 1) return undefined;
    const first = bitString.end - bitString.contentStart > 1 ? certificateDer[bitString.contentStart + 1] : 0;
    return {
      digitalSignature: (first & 0x80) !== 0,
      nonRepudiation: (first & 0x40) !== 0,
      keyEncipherment: (first & 0x20) !== 0,
      keyCertSign: (first & 0x04) !== 0,
    };
  }
  return undefined;
}
