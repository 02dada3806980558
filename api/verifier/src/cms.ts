import type { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  attributeValues,
  bytesOf,
  certificatesOf,
  DIGESTS,
  OID,
  parseSignedData,
  sha,
  signedAttributesBytes,
  signerCertificate,
  verifyWith,
} from './asn1';

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
  /** The signingTime signed attribute (PAdES puts the claimed time in /M instead). */
  signingTime: Date | null;
  /** Why the CMS could not be checked at all (unreadable, no signer certificate, unknown algorithm). */
  error: string | null;
  /** The SignerInfo's signature value: what a signature-timestamp token's imprint hashes. */
  signatureValue: Buffer | null;
  /** The signature-timestamp tokens among the unsigned attributes (DER ContentInfo each). */
  timestampTokens: Buffer[];
}

/** The SignedData's first SignerInfo checked against its content (`content`: the parts, in order). */
export function checkSignerInfo(signed: pkijs.SignedData, content: Uint8Array[]): CmsCheck {
  const result: CmsCheck = {
    digestAlgorithm: 'sha256',
    digestMatches: false,
    signatureValid: false,
    signer: null,
    certificates: certificatesOf(signed.certificates),
    signingTime: null,
    error: null,
    signatureValue: null,
    timestampTokens: [],
  };
  const info = signed.signerInfos[0];
  if (!info) return { ...result, error: 'its CMS has no signer' };
  result.signatureValue = bytesOf(info.signature.valueBlock.valueHexView);
  for (const value of attributeValues(info.unsignedAttrs, OID.signatureTimestamp))
    result.timestampTokens.push(bytesOf((value as asn1js.AsnType).toBER(false)));
  const digest = DIGESTS[info.digestAlgorithm.algorithmId];
  if (!digest) return { ...result, error: `its digest algorithm ${info.digestAlgorithm.algorithmId} is not supported` };
  result.digestAlgorithm = digest;
  const actual = sha(digest, ...content);
  result.signer = signerCertificate(info, result.certificates);
  const signature = result.signatureValue;

  if (info.signedAttrs && info.signedAttrs.attributes.length) {
    const [messageDigest] = attributeValues(info.signedAttrs, OID.messageDigest) as asn1js.OctetString[];
    if (messageDigest instanceof asn1js.OctetString)
      result.digestMatches = bytesOf(messageDigest.valueBlock.valueHexView).equals(actual);
    const [signingTime] = attributeValues(info.signedAttrs, OID.signingTime);
    try {
      if (signingTime) result.signingTime = new pkijs.Time({ schema: signingTime }).value;
    } catch {
      // an unreadable signingTime is no signing time
    }
    if (!result.signer) return { ...result, error: "the signer's certificate is not in the signature" };
    const key = result.signer.publicKey;
    result.signatureValid = signedAttributesBytes(info.signedAttrs).some((signedBytes) =>
      verifyWith(key, info.signatureAlgorithm, digest, signedBytes, signature),
    );
    return result;
  }

  // No signed attributes: the signature is over the content itself.
  if (!result.signer) return { ...result, error: "the signer's certificate is not in the signature" };
  result.signatureValid = verifyWith(
    result.signer.publicKey,
    info.signatureAlgorithm,
    digest,
    Buffer.concat(content),
    signature,
  );
  result.digestMatches = result.signatureValid;
  return result;
}

/** Checks a detached CMS against the bytes it should sign (the /ByteRange parts, in order). */
export function checkCms(cmsDer: Uint8Array, covered: Uint8Array[]): CmsCheck {
  let signed: pkijs.SignedData;
  try {
    signed = parseSignedData(cmsDer);
  } catch {
    return {
      digestAlgorithm: 'sha256',
      digestMatches: false,
      signatureValid: false,
      signer: null,
      certificates: [],
      signingTime: null,
      error: 'its signature data (CMS) cannot be read',
      signatureValue: null,
      timestampTokens: [],
    };
  }
  return checkSignerInfo(signed, covered);
}
