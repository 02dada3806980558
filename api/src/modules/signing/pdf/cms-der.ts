/*
 * The outer layers of a CMS SignedData read and written as DER by hand (issue 23). Parsing and serialising the
 * certificates a CMS carries through the ASN.1 schemas was most of the seal's CPU time, and they are never changed:
 * they are kept here as the very bytes they came as, and only the SignerInfos are handed to the schemas.
 */

/** One DER element: its tag, where its contents start and where it ends. */
interface Element {
  tag: number;
  start: number;
  contents: number;
  end: number;
}

/** Thrown for what is not DER (an indefinite length, a truncated element): the caller falls back to the schemas. */
export class NotDerError extends Error {}

function elementAt(der: Uint8Array, offset: number, limit = der.length): Element {
  if (offset + 2 > limit) throw new NotDerError('A DER element is cut short.');
  const tag = der[offset];
  if ((tag & 0x1f) === 0x1f) throw new NotDerError('High tag numbers are not used in CMS.');
  let length = der[offset + 1];
  let contents = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new NotDerError('An indefinite or oversized length is not DER.');
    if (contents + octets > limit) throw new NotDerError('A DER length is cut short.');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[contents + i];
    contents += octets;
  }
  const end = contents + length;
  if (end > limit) throw new NotDerError('A DER element runs past its container.');
  return { tag, start: offset, contents, end };
}

function childrenOf(der: Uint8Array, parent: Element): Element[] {
  const out: Element[] = [];
  for (let at = parent.contents; at < parent.end;) {
    const child = elementAt(der, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

function lengthOctets(length: number): number[] {
  if (length < 0x80) return [length];
  const octets: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n & 0xff);
  return [0x80 | octets.length, ...octets];
}

/** A DER element of `tag` around the concatenated `parts`. */
export function derElement(tag: number, parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const head = [tag, ...lengthOctets(length)];
  const out = new Uint8Array(head.length + length);
  out.set(head, 0);
  let at = head.length;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** id-signedData (1.2.840.113549.1.7.2) as a DER OBJECT IDENTIFIER. */
const SIGNED_DATA_OID = Uint8Array.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]);

/** A SignedData's parts as their DER bytes (subarrays of the CMS read), the certificates one by one. */
export interface SignedDataParts {
  version: Uint8Array;
  digestAlgorithms: Uint8Array;
  encapContentInfo: Uint8Array;
  /** The CertificateChoices of `certificates [0]`, each as it came; null when the field is absent. */
  certificates: Uint8Array[] | null;
  /** `crls [1]` as a whole, or null. */
  crls: Uint8Array | null;
  signerInfos: Uint8Array;
}

/** ContentInfo(SignedData) taken apart without parsing what is inside its parts. */
export function splitSignedData(cms: Uint8Array): SignedDataParts {
  const info = elementAt(cms, 0);
  if (info.tag !== 0x30 || info.end !== cms.length) throw new NotDerError('A CMS is one DER SEQUENCE.');
  const [type, explicit] = childrenOf(cms, info);
  if (!type || !explicit || explicit.tag !== 0xa0) throw new NotDerError('Not a ContentInfo.');
  if (!Buffer.from(cms.subarray(type.start, type.end)).equals(Buffer.from(SIGNED_DATA_OID)))
    throw new Error('The CMS is not SignedData.');
  const [signedData] = childrenOf(cms, explicit);
  if (!signedData || signedData.tag !== 0x30) throw new NotDerError('Not a SignedData.');
  const fields = childrenOf(cms, signedData);
  const bytes = (e: Element) => cms.subarray(e.start, e.end);
  const [version, digestAlgorithms, encapContentInfo] = fields;
  const last = fields[fields.length - 1];
  if (fields.length < 4 || version.tag !== 0x02 || digestAlgorithms.tag !== 0x31 || last.tag !== 0x31)
    throw new NotDerError('Not a SignedData.');
  const certificates = fields.find((f) => f.tag === 0xa0);
  const crls = fields.find((f) => f.tag === 0xa1);
  return {
    version: bytes(version),
    digestAlgorithms: bytes(digestAlgorithms),
    encapContentInfo: bytes(encapContentInfo),
    certificates: certificates ? childrenOf(cms, certificates).map(bytes) : null,
    crls: crls ? bytes(crls) : null,
    signerInfos: bytes(last),
  };
}

/** ContentInfo(SignedData) from its parts. */
export function joinSignedData(parts: SignedDataParts): Uint8Array {
  const fields = [parts.version, parts.digestAlgorithms, parts.encapContentInfo];
  if (parts.certificates) fields.push(derElement(0xa0, parts.certificates));
  if (parts.crls) fields.push(parts.crls);
  fields.push(parts.signerInfos);
  return derElement(0x30, [SIGNED_DATA_OID, derElement(0xa0, [derElement(0x30, fields)])]);
}

/** A certificate's serial number's content octets, read from its DER without parsing the rest. */
export function serialNumberOf(certificate: Uint8Array): Uint8Array {
  const outer = elementAt(certificate, 0);
  const [tbs] = childrenOf(certificate, outer);
  const fields = childrenOf(certificate, tbs);
  const serial = fields[0]?.tag === 0xa0 ? fields[1] : fields[0];
  if (!serial || serial.tag !== 0x02) throw new NotDerError('Not an X.509 certificate.');
  return certificate.subarray(serial.contents, serial.end);
}

/** A certificate's issuer Name and serialNumber INTEGER, as the DER elements they are in its TBSCertificate. */
export function issuerAndSerialOf(certificate: Uint8Array): { issuer: Uint8Array; serial: Uint8Array } {
  const outer = elementAt(certificate, 0);
  const [tbs] = childrenOf(certificate, outer);
  if (outer.tag !== 0x30 || tbs?.tag !== 0x30) throw new NotDerError('Not an X.509 certificate.');
  const fields = childrenOf(certificate, tbs);
  const from = fields[0]?.tag === 0xa0 ? 1 : 0;
  const [serial, , issuer] = fields.slice(from);
  if (serial?.tag !== 0x02 || issuer?.tag !== 0x30) throw new NotDerError('Not an X.509 certificate.');
  return {
    issuer: certificate.subarray(issuer.start, issuer.end),
    serial: certificate.subarray(serial.start, serial.end),
  };
}

/** A certificate's subject Name, as the DER element it is in its TBSCertificate (what it issues names as issuer). */
export function subjectOf(certificate: Uint8Array): Uint8Array {
  const outer = elementAt(certificate, 0);
  const [tbs] = childrenOf(certificate, outer);
  if (outer.tag !== 0x30 || tbs?.tag !== 0x30) throw new NotDerError('Not an X.509 certificate.');
  const fields = childrenOf(certificate, tbs);
  const subject = fields.slice(fields[0]?.tag === 0xa0 ? 1 : 0)[4];
  if (subject?.tag !== 0x30) throw new NotDerError('Not an X.509 certificate.');
  return certificate.subarray(subject.start, subject.end);
}

/** A SubjectPublicKeyInfo's subjectPublicKey: the BIT STRING's bits (without its unused-bits octet). */
export function publicKeyBitsOf(spki: Uint8Array): Uint8Array {
  const outer = elementAt(spki, 0);
  const [, bits] = childrenOf(spki, outer);
  if (outer.tag !== 0x30 || bits?.tag !== 0x03) throw new NotDerError('Not a SubjectPublicKeyInfo.');
  return spki.subarray(bits.contents + 1, bits.end);
}

const oid = (...bytes: number[]) => Uint8Array.from([0x06, bytes.length, ...bytes]);
const PKCS9 = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09];
/** The OIDs of the signed attributes and algorithms written here, as DER OBJECT IDENTIFIERs. */
const OID_CONTENT_TYPE = oid(...PKCS9, 0x03);
const OID_MESSAGE_DIGEST = oid(...PKCS9, 0x04);
const OID_SIGNING_CERTIFICATE_V2 = oid(...PKCS9, 0x10, 0x02, 0x2f);
const OID_DATA = oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01);
/** AlgorithmIdentifiers as the schemas write them: SHA-256 without parameters, RSA with NULL, ECDSA without. */
const SHA256_ALGORITHM = derElement(0x30, [oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01)]);
export const RSA_SHA256_ALGORITHM = derElement(0x30, [
  oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b),
  Uint8Array.from([0x05, 0x00]),
]);
const ECDSA_SHA256_ALGORITHM = derElement(0x30, [oid(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02)]);

/** DER orders a SET OF by the encodings of its elements. */
function derOrder(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff) return diff;
  }
  return 0;
}

const attributeDer = (type: Uint8Array, value: Uint8Array) => derElement(0x30, [type, derElement(0x31, [value])]);

/**
 * PAdES B-B signed attributes as the DER SET the key signs: contentType (id-data), messageDigest and
 * signing-certificate-v2 (one ESSCertIDv2: the certificate's SHA-256, default hash algorithm left out, and its issuer
 * as a directoryName with its serial number), each written from the certificate's own bytes (issue 23: through the
 * schemas this was about 6 ms a signature).
 */
export function signedAttributesDer(digest: Uint8Array, certificate: Uint8Array, certificateSha256: Uint8Array) {
  const { issuer, serial } = issuerAndSerialOf(certificate);
  const issuerSerial = derElement(0x30, [derElement(0x30, [derElement(0xa4, [issuer])]), serial]);
  const essCertId = derElement(0x30, [derElement(0x04, [certificateSha256]), issuerSerial]);
  const signingCertificate = derElement(0x30, [derElement(0x30, [essCertId])]);
  const attributes = [
    attributeDer(OID_CONTENT_TYPE, OID_DATA),
    attributeDer(OID_MESSAGE_DIGEST, derElement(0x04, [digest])),
    attributeDer(OID_SIGNING_CERTIFICATE_V2, signingCertificate),
  ].sort(derOrder);
  return derElement(0x31, attributes);
}

/** The first value of each attribute of a signed-attributes SET (DER, tag 0x31), by its OID's DER in hex. */
export function attributeValuesOf(signedAttributes: Uint8Array): Map<string, Uint8Array> {
  const set = elementAt(signedAttributes, 0);
  if (set.tag !== 0x31 || set.end !== signedAttributes.length) throw new NotDerError('Not a DER SET of attributes.');
  const values = new Map<string, Uint8Array>();
  for (const attribute of childrenOf(signedAttributes, set)) {
    const [type, valueSet] = childrenOf(signedAttributes, attribute);
    if (attribute.tag !== 0x30 || type?.tag !== 0x06 || valueSet?.tag !== 0x31)
      throw new NotDerError('Not an attribute.');
    const [first] = childrenOf(signedAttributes, valueSet);
    if (first)
      values.set(
        Buffer.from(signedAttributes.subarray(type.start, type.end)).toString('hex'),
        signedAttributes.subarray(first.start, first.end),
      );
  }
  return values;
}

/** The contentType's and messageDigest's values of signed attributes (DER), as checked before a CMS is assembled. */
export function contentTypeAndDigestOf(signedAttributes: Uint8Array): {
  contentType: boolean;
  digest: Uint8Array | null;
} {
  const values = attributeValuesOf(signedAttributes);
  const digest = values.get(Buffer.from(OID_MESSAGE_DIGEST).toString('hex'));
  let digestValue: Uint8Array | null = null;
  if (digest) {
    const octets = elementAt(digest, 0);
    if (octets.tag !== 0x04 || octets.end !== digest.length) throw new NotDerError('messageDigest is an OCTET STRING.');
    digestValue = digest.subarray(octets.contents, octets.end);
  }
  return { contentType: values.has(Buffer.from(OID_CONTENT_TYPE).toString('hex')), digest: digestValue };
}

/**
 * SignerInfos (a SET of one SignerInfo, v1): the signer identified by the certificate's issuer and serial number,
 * SHA-256, the signed attributes as [0] IMPLICIT (the very bytes that were signed, retagged), and the signature.
 */
export function signerInfosDer(params: {
  certificate: Uint8Array;
  signedAttributes: Uint8Array;
  algorithm: 'RSA-SHA256' | 'ECDSA-SHA256';
  signature: Uint8Array;
}): Uint8Array {
  const { issuer, serial } = issuerAndSerialOf(params.certificate);
  const implicit = Uint8Array.from(params.signedAttributes);
  implicit[0] = 0xa0;
  const signerInfo = derElement(0x30, [
    Uint8Array.from([0x02, 0x01, 0x01]),
    derElement(0x30, [issuer, serial]),
    SHA256_ALGORITHM,
    implicit,
    params.algorithm === 'RSA-SHA256' ? RSA_SHA256_ALGORITHM : ECDSA_SHA256_ALGORITHM,
    derElement(0x04, [params.signature]),
  ]);
  return derElement(0x31, [signerInfo]);
}

/**
 * The certificates a DER OCSP response carries (its delegated responder's), as the bytes they are: OCSPResponse →
 * responseBytes [0] → BasicOCSPResponse → certs [0]. An empty list when it carries none; NotDerError when it is not
 * DER (the caller then reads it through the schemas).
 */
export function ocspCertificatesOf(ocsp: Uint8Array): Uint8Array[] {
  const response = elementAt(ocsp, 0);
  if (response.tag !== 0x30 || response.end !== ocsp.length) throw new NotDerError('Not an OCSP response.');
  const explicit = childrenOf(ocsp, response).find((e) => e.tag === 0xa0);
  if (!explicit) return [];
  const [responseBytes] = childrenOf(ocsp, explicit);
  const [, octets] = responseBytes?.tag === 0x30 ? childrenOf(ocsp, responseBytes) : [];
  if (octets?.tag !== 0x04) throw new NotDerError('Not an OCSP response.');
  const basicDer = ocsp.subarray(octets.contents, octets.end);
  const basic = elementAt(basicDer, 0);
  if (basic.tag !== 0x30 || basic.end !== basicDer.length) throw new NotDerError('Not a basic OCSP response.');
  const certs = childrenOf(basicDer, basic).find((e) => e.tag === 0xa0);
  if (!certs) return [];
  const [list] = childrenOf(basicDer, certs);
  if (list?.tag !== 0x30) throw new NotDerError('Not a basic OCSP response.');
  return childrenOf(basicDer, list).map((c) => basicDer.subarray(c.start, c.end));
}

/** The first SignerInfo of a SignerInfos SET (DER), its fields as their DER elements. */
export interface SignerInfoFields {
  /** The SignerInfo's fields in order, each as its bytes. */
  fields: Uint8Array[];
  /** sid's serialNumber's content octets when sid is issuerAndSerialNumber, else null. */
  serial: Uint8Array | null;
  /** signedAttrs as the SET (tag 0x31) the signature covers, or null. */
  signedAttributes: Uint8Array | null;
  /** The signature value's octets. */
  signature: Uint8Array;
  /** Where unsignedAttrs [1] is among `fields`, or -1. */
  unsignedAt: number;
}

/** Reads the first SignerInfo of a DER SignerInfos without the schemas (NotDerError when it is not one). */
export function firstSignerInfoOf(signerInfos: Uint8Array): SignerInfoFields | null {
  const set = elementAt(signerInfos, 0);
  if (set.tag !== 0x31 || set.end !== signerInfos.length) throw new NotDerError('Not a SignerInfos SET.');
  const [info] = childrenOf(signerInfos, set);
  if (!info) return null;
  if (info.tag !== 0x30) throw new NotDerError('Not a SignerInfo.');
  const children = childrenOf(signerInfos, info);
  const bytes = (e: Element) => signerInfos.subarray(e.start, e.end);
  const [version, sid] = children;
  if (version?.tag !== 0x02 || !sid) throw new NotDerError('Not a SignerInfo.');
  let serial: Uint8Array | null = null;
  if (sid.tag === 0x30) {
    const [, number] = childrenOf(signerInfos, sid);
    if (number?.tag !== 0x02) throw new NotDerError('Not an IssuerAndSerialNumber.');
    serial = signerInfos.subarray(number.contents, number.end);
  }
  const signedAt = children.findIndex((c, i) => i > 1 && c.tag === 0xa0);
  let signedAttributes: Uint8Array | null = null;
  if (signedAt > 0) {
    signedAttributes = Uint8Array.from(bytes(children[signedAt]));
    signedAttributes[0] = 0x31;
  }
  // digestAlgorithm, [signedAttrs], signatureAlgorithm, signature: the signature follows the signature algorithm.
  const signatureAt = (signedAt > 0 ? signedAt : 2) + 2;
  const signature = children[signatureAt];
  if (signature?.tag !== 0x04) throw new NotDerError('Not a SignerInfo.');
  const unsignedAt = children.findIndex((c, i) => i > signatureAt && c.tag === 0xa1);
  return {
    fields: children.map(bytes),
    serial,
    signedAttributes,
    signature: signerInfos.subarray(signature.contents, signature.end),
    unsignedAt,
  };
}

/** The values of the attributes of `type` (an OID's DER) among an [1] IMPLICIT SET of attributes. */
function attributesOf(implicitSet: Uint8Array): { type: Uint8Array; bytes: Uint8Array; values: Uint8Array[] }[] {
  const set = elementAt(implicitSet, 0);
  return childrenOf(implicitSet, set).map((attribute) => {
    const [type, values] = childrenOf(implicitSet, attribute);
    if (attribute.tag !== 0x30 || type?.tag !== 0x06 || values?.tag !== 0x31)
      throw new NotDerError('Not an attribute.');
    return {
      type: implicitSet.subarray(type.start, type.end),
      bytes: implicitSet.subarray(attribute.start, attribute.end),
      values: childrenOf(implicitSet, values).map((v) => implicitSet.subarray(v.start, v.end)),
    };
  });
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** The first value of the signer's unsigned attribute `type` (an OID's DER), or null. */
export function unsignedAttributeOf(signer: SignerInfoFields, type: Uint8Array): Uint8Array | null {
  if (signer.unsignedAt < 0) return null;
  const found = attributesOf(signer.fields[signer.unsignedAt]).find((a) => sameBytes(a.type, type));
  return found?.values[0] ?? null;
}

/**
 * SignerInfos with the first signer's unsigned attribute `type` set to the one value `value`: the other unsigned
 * attributes kept in their order, the new one last, every field before them the very bytes they were (so what was
 * signed is unchanged).
 */
export function withUnsignedAttribute(signer: SignerInfoFields, type: Uint8Array, value: Uint8Array): Uint8Array {
  const kept =
    signer.unsignedAt < 0
      ? []
      : attributesOf(signer.fields[signer.unsignedAt])
          .filter((a) => !sameBytes(a.type, type))
          .map((a) => a.bytes);
  const unsigned = derElement(0xa1, [...kept, derElement(0x30, [type, derElement(0x31, [value])])]);
  const fields = signer.fields.filter((_, i) => i !== signer.unsignedAt);
  return derElement(0x31, [derElement(0x30, [...fields, unsigned])]);
}

/** id-aa-signatureTimeStampToken (1.2.840.113549.1.9.16.2.14) as a DER OBJECT IDENTIFIER. */
export const OID_SIGNATURE_TIMESTAMP_TOKEN = oid(...PKCS9, 0x10, 0x02, 0x0e);
