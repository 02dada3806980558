import { constants, createHash, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import { ContentInfo, SignedData, type SignerInfo } from '@peculiar/asn1-cms';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { Time } from '@peculiar/asn1-x509';

/** What the CMS of one PDF signature says, and whether it holds for the bytes its /ByteRange covers. */
export interface CmsCheck {
  /** Node's name of the digest algorithm (sha256, …), or the OID when unknown. */
  digestAlgorithm: string;
  /** The digest of the covered bytes equals the signed messageDigest (or, without signed attributes, is signed). */
  digestMatches: boolean;
  /** The signature over the signed attributes verifies with the signer certificate's key. */
  signatureValid: boolean;
  signer: X509Certificate | null;
  /** Every certificate the CMS carries (the signer's among them). */
  certificates: X509Certificate[];
  signingTime: Date | null;
  /** Why the CMS could not be checked at all (unreadable, no signer certificate, unknown algorithm). */
  error: string | null;
}

const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '2.16.840.1.101.3.4.2.4': 'sha224',
};
/** Signature algorithms that name their digest. */
const SIGNATURE_DIGESTS: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const RSA_PSS = '1.2.840.113549.1.1.10';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNING_TIME = '1.2.840.113549.1.9.5';

interface Tlv {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

/** One DER element (definite lengths). */
function tlv(der: Uint8Array, at: number): Tlv {
  const tag = der[at];
  let len = der[at + 1];
  let contentStart = at + 2;
  if (len === undefined) throw new Error('truncated DER');
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('unsupported DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i];
    contentStart += n;
  }
  const end = contentStart + len;
  if (end > der.length) throw new Error('truncated DER');
  return { tag, start: at, contentStart, end };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = tlv(der, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

/**
 * The signed attributes of the first SignerInfo exactly as encoded, re-tagged as a SET (0x31): what was signed.
 * ContentInfo → [0] → SignedData → signerInfos (the last SET) → SignerInfo → [0] signedAttrs.
 */
function rawSignedAttributes(der: Uint8Array): Buffer | null {
  const contentInfo = tlv(der, 0);
  const explicit = children(der, contentInfo)[1];
  const signedData = children(der, explicit)[0];
  const signerInfos = children(der, signedData).at(-1);
  if (!signerInfos || signerInfos.tag !== 0x31) return null;
  const signerInfo = children(der, signerInfos)[0];
  const attrs = children(der, signerInfo).find((c) => c.tag === 0xa0);
  if (!attrs) return null;
  const out = Buffer.from(der.subarray(attrs.start, attrs.end));
  out[0] = 0x31;
  return out;
}

/** A DER SET OF: its elements sorted by their encodings. */
function derSet(elements: Buffer[]): Buffer {
  const body = Buffer.concat([...elements].sort(Buffer.compare));
  const len = body.length;
  const lenBytes: number[] = [];
  for (let rest = len; rest > 0; rest = Math.floor(rest / 256)) lenBytes.unshift(rest % 256);
  const header = len < 0x80 ? [0x31, len] : [0x31, 0x80 | lenBytes.length, ...lenBytes];
  return Buffer.concat([Buffer.from(header), body]);
}

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    .toString('hex')
    .replace(/^(00)+/, '')
    .toLowerCase();

function signerCertificate(info: SignerInfo, certs: X509Certificate[], ders: Uint8Array[]): X509Certificate | null {
  const byIssuer = info.sid.issuerAndSerialNumber;
  if (byIssuer) {
    const serial = hex(byIssuer.serialNumber);
    return certs.find((c) => c.serialNumber.toLowerCase().replace(/^(00)+/, '') === serial) ?? null;
  }
  const ski = info.sid.subjectKeyIdentifier;
  if (ski) {
    const wanted = hex(ski.buffer);
    // The SKI extension's value is an OCTET STRING inside the extension: search the certificate's bytes for it.
    const i = ders.findIndex((d) => Buffer.from(d).toString('hex').includes(wanted));
    return i >= 0 ? certs[i] : null;
  }
  return null;
}

/** RSASSA-PSS-params (RFC 4055): [0] hashAlgorithm, [1] maskGenAlgorithm, [2] saltLength. */
function pssParams(der: Uint8Array, hash: string, saltLength: number): { hash: string; saltLength: number } {
  for (const field of children(der, tlv(der, 0))) {
    if (field.tag === 0xa0) {
      const algorithm = children(der, children(der, field)[0])[0];
      hash = DIGESTS[oidText(der.subarray(algorithm.contentStart, algorithm.end))] ?? hash;
    } else if (field.tag === 0xa2) {
      const int = children(der, field)[0];
      saltLength = der.subarray(int.contentStart, int.end).reduce((n, b) => n * 256 + b, 0);
    }
  }
  return { hash, saltLength };
}

/** An OBJECT IDENTIFIER's content bytes as dotted text. */
function oidText(bytes: Uint8Array): string {
  const parts: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

function verifyWith(
  key: KeyObject,
  algorithmOid: string,
  algorithmParams: ArrayBuffer | null | undefined,
  digest: string,
  data: Buffer,
  signature: Buffer,
): boolean {
  if (algorithmOid === RSA_PSS) {
    let hash = 'sha1';
    let saltLength = 20;
    if (algorithmParams) ({ hash, saltLength } = pssParams(new Uint8Array(algorithmParams), hash, saltLength));
    return verifySignature(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signature);
  }
  const hash = SIGNATURE_DIGESTS[algorithmOid] ?? digest;
  if (key.asymmetricKeyType === 'ec' || algorithmOid === EC_PUBLIC_KEY)
    return verifySignature(hash, data, { key, dsaEncoding: 'der' }, signature);
  if (key.asymmetricKeyType === 'rsa' || algorithmOid === RSA_ENCRYPTION)
    return verifySignature(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  return verifySignature(hash, data, key, signature);
}

/** Checks a detached CMS against the bytes it should sign (the /ByteRange parts, in order). */
export function checkCms(cmsDer: Uint8Array, covered: Uint8Array[]): CmsCheck {
  const result: CmsCheck = {
    digestAlgorithm: 'sha256',
    digestMatches: false,
    signatureValid: false,
    signer: null,
    certificates: [],
    signingTime: null,
    error: null,
  };
  let signedData: SignedData;
  try {
    const contentInfo = AsnConvert.parse(cmsDer, ContentInfo);
    signedData = AsnConvert.parse(contentInfo.content, SignedData);
  } catch {
    return { ...result, error: 'its signature data (CMS) cannot be read' };
  }
  const ders: Uint8Array[] = [];
  for (const choice of signedData.certificates ?? []) {
    if (!choice.certificate) continue;
    const der = new Uint8Array(AsnConvert.serialize(choice.certificate));
    try {
      result.certificates.push(new X509Certificate(der));
      ders.push(der);
    } catch {
      // a certificate Node cannot read: not usable for the chain either
    }
  }
  const info = signedData.signerInfos[0];
  if (!info) return { ...result, error: 'its CMS has no signer' };
  const digest = DIGESTS[info.digestAlgorithm.algorithm];
  if (!digest) return { ...result, error: `its digest algorithm ${info.digestAlgorithm.algorithm} is not supported` };
  result.digestAlgorithm = digest;
  const hash = createHash(digest);
  for (const part of covered) hash.update(part);
  const actual = hash.digest();
  result.signer = signerCertificate(info, result.certificates, ders);
  const signature = Buffer.from(info.signature.buffer);
  const algorithm = info.signatureAlgorithm;

  if (info.signedAttrs && info.signedAttrs.length) {
    for (const attr of info.signedAttrs) {
      try {
        if (attr.attrType === MESSAGE_DIGEST && attr.attrValues[0]) {
          const value = AsnConvert.parse(attr.attrValues[0], OctetString);
          result.digestMatches = Buffer.from(value.buffer).equals(actual);
        } else if (attr.attrType === SIGNING_TIME && attr.attrValues[0]) {
          result.signingTime = AsnConvert.parse(attr.attrValues[0], Time).getTime();
        }
      } catch {
        // an unreadable attribute leaves its check false
      }
    }
    if (!result.signer) return { ...result, error: "the signer's certificate is not in the signature" };
    let signed: Buffer | null;
    try {
      signed = rawSignedAttributes(cmsDer);
    } catch {
      signed = null;
    }
    // BER (indefinite lengths): the signature is over the DER encoding, rebuilt from the parsed attributes.
    signed ??= derSet(info.signedAttrs.map((a) => Buffer.from(AsnConvert.serialize(a))));
    try {
      result.signatureValid = verifyWith(
        result.signer.publicKey,
        algorithm.algorithm,
        algorithm.parameters,
        digest,
        signed,
        signature,
      );
    } catch {
      result.signatureValid = false;
    }
    return result;
  }

  // No signed attributes: the signature is over the content itself.
  if (!result.signer) return { ...result, error: "the signer's certificate is not in the signature" };
  try {
    result.signatureValid = verifyWith(
      result.signer.publicKey,
      algorithm.algorithm,
      algorithm.parameters,
      digest,
      Buffer.concat(covered),
      signature,
    );
  } catch {
    result.signatureValid = false;
  }
  result.digestMatches = result.signatureValid;
  return result;
}
