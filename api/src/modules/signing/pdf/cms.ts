import { createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import {
  CMSVersion,
  ContentInfo,
  DigestAlgorithmIdentifier,
  DigestAlgorithmIdentifiers,
  EncapsulatedContentInfo,
  id_data,
  id_signedData,
  SignedData,
} from '@peculiar/asn1-cms';
import { ECDSASigValue } from '@peculiar/asn1-ecc';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  contentTypeAndDigestOf,
  firstSignerInfoOf,
  joinSignedData,
  NotDerError,
  OID_SIGNATURE_TIMESTAMP_TOKEN,
  serialNumberOf,
  signedAttributesDer,
  signerInfosDer,
  splitSignedData,
  unsignedAttributeOf,
  withUnsignedAttribute,
  type SignedDataParts,
  type SignerInfoFields,
} from './cms-der';

/*
 * The CMS (RFC 5652) of every signature the product embeds: the PAdES signed attributes a key or a USB token signs,
 * the SignedData around a signature, the signature-timestamp attribute (B-T) added to a CMS made here or by an ESP,
 * and the few things read back (messageDigest, signature value, signer certificate, timestamp token). Written and read
 * as DER by hand (cms-der.ts, issue 23); @peculiar's ASN.1 schemas only read a BER CMS (re-encoded as DER first) and
 * write the constant head of a SignedData.
 */

export const CmsOid = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  /** id-aa-signatureTimeStampToken (RFC 3161 appendix A): a TimeStampToken over the signature value. */
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

export type CmsSignatureAlgorithm = 'RSA-SHA256' | 'ECDSA-SHA256';

const sha256 = (bytes: Uint8Array | ArrayBuffer) =>
  new Uint8Array(createHash('sha256').update(new Uint8Array(bytes)).digest());
const bytesOf = (value: ArrayBuffer | Uint8Array): Uint8Array => new Uint8Array(value);
const bufferOf = (bytes: Uint8Array | ArrayBuffer): ArrayBuffer => {
  const view = new Uint8Array(bytes);
  return view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength) as ArrayBuffer;
};

/**
 * The DER of PAdES B-B signed attributes, encoded as a SET (tag 0x31): what the signer's key signs. contentType
 * (id-data), messageDigest, and signing-certificate-v2 (an ESSCertIDv2 with the certificate's SHA-256 and issuer and
 * serial); no signingTime (PAdES puts the time in the signature dictionary's /M).
 */
export function signedAttributesFor(digest: Uint8Array, certificateDer: Uint8Array): Uint8Array {
  if (digest.length !== 32) throw new Error(`A SHA-256 digest has 32 bytes, not ${digest.length}.`);
  try {
    return signedAttributesDer(digest, certificateDer, sha256(certificateDer));
  } catch (error) {
    throw new Error(`Not a DER-encoded X.509 certificate (${(error as Error).message}).`);
  }
}

export interface CmsParts {
  /** When given, the signed attributes' messageDigest must equal it. */
  digest?: Uint8Array;
  /** As signedAttributesFor() answered them and the key signed them (tag 0x31). */
  signedAttributesDer: Uint8Array;
  /** RSA PKCS#1 v1.5; ECDSA as DER or as the raw r‖s a PKCS#11 token answers (converted to DER). */
  signature: Uint8Array;
  certificateDer: Uint8Array;
  /** Issuers up to the root, without the signer's own certificate. */
  chainDers: Uint8Array[];
  signatureAlgorithm: CmsSignatureAlgorithm;
}

/** ECDSA-Sig-Value DER as it is, or built from a P-256 token's raw r‖s (64 bytes). */
function ecdsaDer(signature: Uint8Array): Uint8Array {
  try {
    const value = AsnConvert.parse(signature, ECDSASigValue);
    if (bytesOf(AsnConvert.serialize(value)).length === signature.length) return signature;
  } catch {
    // not DER: raw r‖s below
  }
  if (signature.length !== 64) throw new Error('An ECDSA P-256 signature is DER or 64 bytes of r‖s.');
  const integer = (value: Uint8Array) => {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const trimmed = value.subarray(start);
    return bufferOf(trimmed[0] & 0x80 ? Uint8Array.from([0, ...trimmed]) : trimmed);
  };
  return bytesOf(
    AsnConvert.serialize(
      new ECDSASigValue({ r: integer(signature.subarray(0, 32)), s: integer(signature.subarray(32)) }),
    ),
  );
}

/** Does `signature` verify over the signed attributes (as a DER SET) with the certificate's key? */
function signatureHolds(signedAttributesDer: Uint8Array, signature: Uint8Array, certificateDer: Uint8Array): boolean {
  const certificate = new X509Certificate(certificateDer);
  return verifySignature('sha256', signedAttributesDer, { key: certificate.publicKey, dsaEncoding: 'der' }, signature);
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
  let signed: ReturnType<typeof contentTypeAndDigestOf>;
  try {
    signed = contentTypeAndDigestOf(signedAttributesDer);
  } catch (error) {
    throw new Error(`The signed attributes are not a DER SET of attributes (${(error as Error).message}).`);
  }
  if (!signed.contentType || !signed.digest)
    throw new Error('The signed attributes lack contentType or messageDigest.');
  if (parts.digest && !Buffer.from(signed.digest).equals(Buffer.from(parts.digest)))
    throw new Error('The signed attributes carry another messageDigest than the document digest.');

  const keyType = new X509Certificate(certificateDer).publicKey.asymmetricKeyType;
  if ((signatureAlgorithm === 'RSA-SHA256') !== (keyType === 'rsa') || !['rsa', 'ec'].includes(keyType ?? ''))
    throw new Error(`A ${signatureAlgorithm} signature cannot come from the certificate's ${keyType} key.`);
  const signature = signatureAlgorithm === 'ECDSA-SHA256' ? ecdsaDer(parts.signature) : parts.signature;
  if (!signatureHolds(signedAttributesDer, signature, certificateDer))
    throw new Error("The signature does not verify with the certificate's key over the signed attributes.");

  const certificates = [
    certificateDer,
    ...parts.chainDers.filter((c) => !Buffer.from(c).equals(Buffer.from(certificateDer))),
  ];
  // The certificates go in as the bytes they are, and the SignerInfo is written by hand around the signed attributes
  // as they were signed (issue 23: through the ASN.1 schemas these were most of a CMS's cost).
  const signerInfos = signerInfosDer({
    certificate: certificateDer,
    signedAttributes: signedAttributesDer,
    algorithm: signatureAlgorithm,
    signature,
  });
  return joinSignedData({ ...SIGNED_DATA_HEAD(), certificates, crls: null, signerInfos });
}

/** version, digestAlgorithms and encapContentInfo of every SignedData made here (v1, SHA-256, id-data), once. */
let signedDataHead: Pick<SignedDataParts, 'version' | 'digestAlgorithms' | 'encapContentInfo'> | null = null;
function SIGNED_DATA_HEAD() {
  signedDataHead ??= {
    version: Uint8Array.from([0x02, 0x01, CMSVersion.v1]),
    digestAlgorithms: bytesOf(
      AsnConvert.serialize(
        new DigestAlgorithmIdentifiers([new DigestAlgorithmIdentifier({ algorithm: CmsOid.sha256 })]),
      ),
    ),
    encapContentInfo: bytesOf(AsnConvert.serialize(new EncapsulatedContentInfo({ eContentType: id_data }))),
  };
  return signedDataHead;
}

interface ReadCms {
  parts: SignedDataParts;
  /** The first SignerInfo, read from its DER (null: the CMS has none). */
  signer: SignerInfoFields | null;
}

/**
 * A CMS's parts (see cms-der.ts) and its first SignerInfo, read from the DER without the schemas (issue 23: parsing
 * SignerInfos through them was most of the cost of adding a timestamp and gathering validation data). A CMS that is
 * BER rather than DER (an ESP's answer may be) is read through the schemas and its parts re-encoded as DER first.
 */
function readCms(cmsDer: Uint8Array): ReadCms {
  let parts: SignedDataParts;
  try {
    parts = splitSignedData(cmsDer);
  } catch (error) {
    if (!(error instanceof NotDerError)) throw error;
    const info = AsnConvert.parse(cmsDer, ContentInfo);
    if (info.contentType !== id_signedData) throw new Error('The CMS is not SignedData.');
    const signedData = AsnConvert.parse(info.content, SignedData);
    parts = splitSignedData(
      bytesOf(
        AsnConvert.serialize(
          new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signedData) }),
        ),
      ),
    );
  }
  return { parts, signer: firstSignerInfoOf(parts.signerInfos) };
}

/**
 * CMS read already, by the very array (issue 23: a signature's CMS was parsed again for each thing read from it, its
 * digest, its signature value, its certificates). Read-only use.
 */
const readCmsCache = new WeakMap<Uint8Array, ReadCms>();

function readCached(cmsDer: Uint8Array): ReadCms {
  let known = readCmsCache.get(cmsDer);
  if (!known) {
    known = readCms(cmsDer);
    readCmsCache.set(cmsDer, known);
  }
  return known;
}

function firstSigner(read: ReadCms): SignerInfoFields & { signedAttributes: Uint8Array } {
  const signer = read.signer;
  if (!signer?.signedAttributes) throw new Error('The CMS has no signer with signed attributes.');
  return signer as SignerInfoFields & { signedAttributes: Uint8Array };
}

/** The first signer's signed attributes as the SET its signature covers. */
function signedAttributesDerOf(cmsDer: Uint8Array): Uint8Array {
  return firstSigner(readCached(cmsDer)).signedAttributes;
}

/** The messageDigest a CMS's (first) signer signed: an ESP's answer must carry the digest that was sent. */
export function messageDigestOf(cmsDer: Uint8Array): Uint8Array {
  const { digest } = contentTypeAndDigestOf(signedAttributesDerOf(cmsDer));
  if (!digest) throw new Error('The signed attributes lack messageDigest.');
  return digest;
}

/** The (first) signer's signature value: what a signature-timestamp token's imprint is the SHA-256 of. */
export function signatureValueOf(cmsDer: Uint8Array): Uint8Array {
  return firstSigner(readCached(cmsDer)).signature;
}

/** The DER of the signer's own certificate and the others the CMS carries (for the DSS and the audit trail). */
export function certificatesOf(cmsDer: Uint8Array): { signer: Uint8Array; others: Uint8Array[] } {
  const read = readCached(cmsDer);
  const signer = firstSigner(read);
  // CertificateChoices: a plain certificate is a SEQUENCE; the other choices are context-tagged and left out.
  const all = (read.parts.certificates ?? []).filter((der) => der[0] === 0x30);
  const serial = signer.serial;
  const own = serial ? all.find((der) => Buffer.from(serialNumberOf(der)).equals(Buffer.from(serial))) : all[0];
  if (!own) throw new Error('The signer certificate is not in the CMS.');
  return { signer: own, others: all.filter((der) => der !== own) };
}

/** The signature-timestamp token a CMS's signer carries already, or null. */
export function signatureTimestampOf(cmsDer: Uint8Array): Uint8Array | null {
  return unsignedAttributeOf(firstSigner(readCached(cmsDer)), OID_SIGNATURE_TIMESTAMP_TOKEN);
}

/**
 * B-T: the CMS with `token` (a TimeStampToken over the SHA-256 of its signer's signature value) as the signer's
 * unsigned signature-timestamp attribute. The signed part stays byte for byte as it was (every field before the
 * unsigned attributes is copied as it is, and its signature is checked to still verify), so a CMS an ESP or a token
 * made takes the timestamp too.
 */
export function withSignatureTimestamp(cmsDer: Uint8Array, token: Uint8Array): Uint8Array {
  const read = readCms(cmsDer);
  const signer = firstSigner(read);
  const out = joinSignedData({
    ...read.parts,
    signerInfos: withUnsignedAttribute(signer, OID_SIGNATURE_TIMESTAMP_TOKEN, token),
  });
  const { signer: certificate } = certificatesOf(out);
  const after = signedAttributesDerOf(out);
  if (
    !Buffer.from(signer.signedAttributes).equals(Buffer.from(after)) ||
    !signatureHolds(after, signatureValueOf(out), certificate)
  )
    throw new Error('The signature-timestamp could not be added without changing what the signer signed.');
  return out;
}

/** SHA-256 of the signer's signature value: the message imprint of its signature-timestamp token. */
export const signatureImprint = (cmsDer: Uint8Array): Uint8Array => sha256(signatureValueOf(cmsDer));
