import { constants, createHash, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * The verifier's one door to ASN.1: pkijs and asn1js parse every structure (CMS, TSTInfo, OCSP, CRL, certificates);
 * Node's crypto checks the signatures with the public keys of Node's X509Certificate. Nothing here encodes DER by hand.
 */

export const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signatureTimestamp: '1.2.840.113549.1.9.16.2.14',
  basicOcsp: '1.3.6.1.5.5.7.48.1.1',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  ecPublicKey: '1.2.840.10045.2.1',
} as const;

/** Node's names of the digest algorithms, by OID. */
export const DIGESTS: Record<string, string> = {
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

export const bytesOf = (view: ArrayBuffer | Uint8Array): Buffer =>
  Buffer.from(view instanceof Uint8Array ? view : new Uint8Array(view));

/** Parses BER/DER bytes; throws when they are not one whole ASN.1 element. */
export function parseAsn1(bytes: Uint8Array): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1) throw new Error(parsed.result.error || 'unreadable ASN.1');
  return parsed.result;
}

/** A CMS ContentInfo holding SignedData (a PDF signature, or an RFC 3161 timestamp token). */
export function parseSignedData(der: Uint8Array): pkijs.SignedData {
  const info = new pkijs.ContentInfo({ schema: parseAsn1(der) });
  if (info.contentType !== OID.signedData) throw new Error(`content type ${info.contentType} is not SignedData`);
  return new pkijs.SignedData({ schema: info.content });
}

/** The encapsulated content's bytes (a constructed OCTET STRING's parts joined), or null when detached. */
export function encapsulatedContent(signed: pkijs.SignedData): Buffer | null {
  const content = signed.encapContentInfo.eContent;
  return content ? bytesOf(content.getValue()) : null;
}

/**
 * Node certificates by their DER's SHA-256, so a certificate met in several places (every signature carries the same
 * chain, every timestamp the TSA's) is one object, parsed once by Node and once by pkijs. Bounded: the oldest go.
 */
const known = new Map<string, X509Certificate>();
export function certificateFrom(der: Uint8Array): X509Certificate {
  const key = sha('sha256', der).toString('base64');
  let cert = known.get(key);
  if (!cert) {
    cert = new X509Certificate(der);
    if (known.size >= 1000) known.delete(known.keys().next().value as string);
    known.set(key, cert);
  }
  return cert;
}

/** Every X.509 certificate of a SignedData (or an OCSP response), as Node certificates; unreadable ones left out. */
export function certificatesOf(list: unknown[] | undefined): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const item of list ?? []) {
    if (!(item instanceof pkijs.Certificate)) continue;
    try {
      out.push(certificateFrom(bytesOf(item.toSchema().toBER(false))));
    } catch {
      // a certificate Node cannot read is not usable for a chain either
    }
  }
  return out;
}

/** A certificate's pkijs view (issuer name, serial, extensions, key bits), parsed once; null when pkijs cannot. */
const views = new WeakMap<X509Certificate, pkijs.Certificate | null>();
export function pkijsView(cert: X509Certificate): pkijs.Certificate | null {
  if (!views.has(cert)) {
    let view: pkijs.Certificate | null;
    try {
      view = new pkijs.Certificate({ schema: parseAsn1(cert.raw) });
    } catch {
      view = null;
    }
    views.set(cert, view);
  }
  return views.get(cert) ?? null;
}

/** An INTEGER's value as lower-case hex without leading zero bytes (how serial numbers are compared). */
export const integerHex = (value: asn1js.Integer): string =>
  bytesOf(value.valueBlock.valueHexView)
    .toString('hex')
    .replace(/^(00)+(?=.)/, '')
    .toLowerCase();

export const serialHex = (cert: X509Certificate): string => cert.serialNumber.toLowerCase().replace(/^(00)+(?=.)/, '');

/** The value of a certificate's subjectKeyIdentifier extension, hex; null without one. */
export function subjectKeyIdentifier(cert: X509Certificate): string | null {
  const ext = pkijsView(cert)?.extensions?.find((e) => e.extnID === '2.5.29.14');
  const value = ext?.parsedValue as asn1js.OctetString | undefined;
  return value ? bytesOf(value.valueBlock.valueHexView).toString('hex') : null;
}

/** Does the certificate say it may sign timestamps (extended key usage id-kp-timeStamping)? */
export function canTimestamp(cert: X509Certificate): boolean {
  const ext = pkijsView(cert)?.extensions?.find((e) => e.extnID === '2.5.29.37');
  const usage = ext?.parsedValue as pkijs.ExtKeyUsage | undefined;
  return Boolean(usage?.keyPurposes?.includes(OID.timeStamping));
}

/** The DER of the certificate's subject name (what an OCSP CertID hashes as the issuer's name). */
const names = new WeakMap<X509Certificate, Buffer | null>();
export function subjectNameDer(cert: X509Certificate): Buffer | null {
  if (!names.has(cert)) {
    const view = pkijsView(cert);
    names.set(cert, view ? bytesOf(view.subject.toSchema().toBER(false)) : null);
  }
  return names.get(cert) ?? null;
}

/** The subject public key's bits (what an OCSP CertID hashes as the issuer's key). */
export function publicKeyBits(cert: X509Certificate): Buffer | null {
  const view = pkijsView(cert);
  return view ? bytesOf(view.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView) : null;
}

/** The certificate's issuer name equals `name` (as pkijs compares names). */
export const issuerIs = (cert: X509Certificate, name: pkijs.RelativeDistinguishedNames): boolean =>
  pkijsView(cert)?.issuer.isEqual(name) ?? false;

export const sha = (algorithm: string, ...parts: Uint8Array[]): Buffer => {
  const hash = createHash(algorithm);
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/**
 * Verifies `signature` over `data` with `key` under the algorithm named by a signature or key AlgorithmIdentifier:
 * RSA PKCS#1 v1.5, RSASSA-PSS (its parameters read with pkijs), ECDSA (DER signature values). `digest` is the digest
 * to use when the algorithm does not name one (rsaEncryption, ecPublicKey in a SignerInfo).
 */
export function verifyWith(
  key: KeyObject,
  algorithm: pkijs.AlgorithmIdentifier,
  digest: string,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  const oid = algorithm.algorithmId;
  try {
    if (oid === OID.rsaPss) {
      let hash = 'sha1';
      let saltLength = 20;
      if (algorithm.algorithmParams) {
        const params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams });
        hash = DIGESTS[params.hashAlgorithm.algorithmId] ?? hash;
        saltLength = params.saltLength ?? saltLength;
      }
      return verifySignature(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signature);
    }
    const hash = SIGNATURE_DIGESTS[oid] ?? digest;
    if (key.asymmetricKeyType === 'ec') return verifySignature(hash, data, { key, dsaEncoding: 'der' }, signature);
    if (key.asymmetricKeyType === 'rsa')
      return verifySignature(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    return verifySignature(hash, data, key, signature);
  } catch {
    return false;
  }
}

/** Finds the certificate a SignerInfo names (issuer and serial, or subject key identifier) among `certs`. */
export function signerCertificate(info: pkijs.SignerInfo, certs: X509Certificate[]): X509Certificate | null {
  const sid = info.sid as unknown;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const serial = integerHex(sid.serialNumber);
    return certs.find((c) => serialHex(c) === serial && issuerIs(c, sid.issuer)) ?? null;
  }
  // [0] SubjectKeyIdentifier: an implicitly tagged OCTET STRING.
  const raw = (sid as asn1js.Constructed | asn1js.Primitive | undefined)?.valueBlock as
    { valueHexView?: Uint8Array; value?: asn1js.AsnType[] } | undefined;
  const bytes =
    raw?.valueHexView && raw.valueHexView.byteLength
      ? raw.valueHexView
      : (raw?.value?.[0] as asn1js.OctetString | undefined)?.valueBlock.valueHexView;
  if (!bytes) return null;
  const wanted = bytesOf(bytes).toString('hex');
  return certs.find((c) => subjectKeyIdentifier(c) === wanted) ?? null;
}

/** One attribute's first value among a SignerInfo's signed or unsigned attributes. */
export function attributeValues(attrs: pkijs.SignedAndUnsignedAttributes | undefined, type: string): unknown[] {
  return attrs?.attributes.find((a) => a.type === type)?.values ?? [];
}

/**
 * What a SignerInfo's signature covers: its signed attributes, as encoded in the CMS with the [0] tag made a SET
 * (pkijs keeps that encoding); when that was BER, the DER re-encoding of the same attributes, sorted as DER sorts a
 * SET OF.
 */
export function signedAttributesBytes(attrs: pkijs.SignedAndUnsignedAttributes): Buffer[] {
  const encoded = bytesOf(attrs.encodedValue);
  const sorted = attrs.attributes.map((a) => bytesOf(a.toSchema().toBER(false))).sort(Buffer.compare);
  const der = bytesOf(new asn1js.Set({ value: sorted.map((b) => parseAsn1(b)) }).toBER(false));
  return encoded.byteLength && !encoded.equals(der) ? [encoded, der] : [der];
}
