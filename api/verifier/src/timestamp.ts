import type { X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import {
  bytesOf,
  canTimestamp,
  DIGESTS,
  encapsulatedContent,
  integerHex,
  OID,
  parseAsn1,
  parseSignedData,
  sha,
} from './asn1';
import { commonName } from './chain';
import { checkSignerInfo } from './cms';

/** An RFC 3161 timestamp token checked against the bytes it should vouch for. */
export interface TimestampCheck {
  /** TSTInfo genTime: the time the TSA vouches for. */
  time: Date | null;
  /** The TSA certificate's common name. */
  tsa: string | null;
  /** TSTInfo serialNumber (hex) and policy. */
  serial: string | null;
  policy: string | null;
  /** The message imprint: its digest algorithm and value (hex). */
  hashAlgorithm: string | null;
  imprint: string | null;
  /** The imprint is the digest of what the token should cover. */
  imprintMatches: boolean;
  /** The TSA's signature holds: the signed messageDigest is the TSTInfo's, and the signature verifies. */
  signatureValid: boolean;
  /** The TSA certificate may sign timestamps (extended key usage id-kp-timeStamping). */
  timestampUsage: boolean;
  signer: X509Certificate | null;
  /** Every certificate the token carries. */
  certificates: X509Certificate[];
  /** Why the token could not be checked at all. */
  error: string | null;
}

/**
 * Checks a timestamp token (a CMS SignedData over a TSTInfo) whose imprint should be the digest of `covered`: the
 * signature value of a SignerInfo (a signature timestamp) or a document timestamp's /ByteRange bytes.
 */
export function checkTimestampToken(token: Uint8Array, covered: Uint8Array[]): TimestampCheck {
  const result: TimestampCheck = {
    time: null,
    tsa: null,
    serial: null,
    policy: null,
    hashAlgorithm: null,
    imprint: null,
    imprintMatches: false,
    signatureValid: false,
    timestampUsage: false,
    signer: null,
    certificates: [],
    error: null,
  };
  let signed: pkijs.SignedData;
  let info: pkijs.TSTInfo;
  let content: Buffer | null;
  try {
    signed = parseSignedData(token);
    content = encapsulatedContent(signed);
    if (signed.encapContentInfo.eContentType !== OID.tstInfo || !content)
      return { ...result, error: 'it is not a timestamp token (no TSTInfo)' };
    info = new pkijs.TSTInfo({ schema: parseAsn1(content) });
  } catch {
    return { ...result, error: 'its timestamp token cannot be read' };
  }
  result.time = info.genTime;
  result.serial = integerHex(info.serialNumber);
  result.policy = info.policy;
  const algorithm = DIGESTS[info.messageImprint.hashAlgorithm.algorithmId] ?? null;
  result.hashAlgorithm = algorithm ?? info.messageImprint.hashAlgorithm.algorithmId;
  const imprint = bytesOf(info.messageImprint.hashedMessage.valueBlock.valueHexView);
  result.imprint = imprint.toString('hex');
  result.imprintMatches = algorithm !== null && imprint.equals(sha(algorithm, ...covered));

  const check = checkSignerInfo(signed, [content]);
  result.certificates = check.certificates;
  result.signer = check.signer;
  result.tsa = check.signer ? commonName(check.signer) : null;
  result.timestampUsage = check.signer ? canTimestamp(check.signer) : false;
  result.signatureValid = !check.error && check.digestMatches && check.signatureValid;
  if (check.error) result.error = check.error.replace(/^its CMS/, 'its timestamp token');
  return result;
}
