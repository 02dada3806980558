import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { TimestampToken } from './timestamps';

/**
 * The time-stamp protocol (RFC 3161) on pkijs and asn1js, the client's side: the query it sends and every check an
 * answer must pass before its token is used (the development TSA's answer is in tsa-answer.ts). Nothing here does I/O.
 */

export const Oid = {
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
} as const;

/**
 * The built-in development TSA's policy: an OID of our own under 2.25 (ITU-T X.667, an arc derived from a UUID, so
 * it needs no registration), `.1` for "development timestamps, trusted by nobody".
 */
export const DEV_TSA_POLICY = '2.25.310463320545412476106476920413787678827.1';

/** How far a TSA's genTime may be from our clock (either way) before its answer is refused. */
export const GEN_TIME_TOLERANCE_MS = 10 * 60_000;

/** The digests a TSA answers for (RFC 3161 leaves the list to the TSA; SHA-1 is no longer collision-resistant). */
export const DIGESTS: Record<string, { name: string; length: number }> = {
  [Oid.sha256]: { name: 'SHA-256', length: 32 },
  [Oid.sha384]: { name: 'SHA-384', length: 48 },
  [Oid.sha512]: { name: 'SHA-512', length: 64 },
};
const ESS_DIGESTS: Record<string, string> = {
  [Oid.sha1]: 'sha1',
  [Oid.sha256]: 'sha256',
  [Oid.sha384]: 'sha384',
  [Oid.sha512]: 'sha512',
};
const STATUS_NAMES = [
  'granted',
  'grantedWithMods',
  'rejection',
  'waiting',
  'revocationWarning',
  'revocationNotification',
];
export const FAILURE_NAMES: Record<number, string> = {
  0: 'badAlg',
  2: 'badRequest',
  5: 'badDataFormat',
  14: 'timeNotAvailable',
  15: 'unacceptedPolicy',
  16: 'unacceptedExtension',
  17: 'addInfoNotAvailable',
  25: 'systemFailure',
};
export type FailureName =
  'badAlg' | 'badRequest' | 'badDataFormat' | 'unacceptedPolicy' | 'unacceptedExtension' | 'systemFailure';

/**
 * pkijs's crypto engine over Node's WebCrypto, passed explicitly to every call: pkijs keeps its default engine in a
 * module variable, and @libpdf/core (an ES module) loads its own copy of pkijs and installs its own engine there.
 */
export const tspCrypto = new pkijs.CryptoEngine({
  name: 'esign-tsp',
  crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'],
});

/** A TSA's answer failed a check: the reason, as recorded for that TSA. */
export class TimestampCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampCheckError';
  }
}

/**
 * asn1js writes an arc too large for a JavaScript number as `{hex of its 7-bit groups}`; OIDs under 2.25 have such an
 * arc. This gives the dotted decimal form back.
 */
export function oidText(oid: string): string {
  return oid.replace(/\{([0-9a-fA-F]*)\}/g, (_m, hex: string) => {
    let value = 0n;
    for (let i = 0; i < hex.length; i += 2) value = value * 128n + BigInt(parseInt(hex.slice(i, i + 2), 16) & 0x7f);
    return value.toString();
  });
}

const hex = (bytes: ArrayBuffer | Uint8Array): string => Buffer.from(bytes as Uint8Array).toString('hex');
const sameBytes = (a: ArrayBuffer | Uint8Array, b: ArrayBuffer | Uint8Array): boolean =>
  Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array));
export const der = (cert: pkijs.Certificate): Uint8Array => new Uint8Array(cert.toSchema().toBER(false));
/** A text that came from the other side, made safe to record (no control characters, bounded). */
const printable = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

/** Parses one DER value that must fill `bytes` exactly. */
export function parseDer(bytes: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1)
    throw new TimestampCheckError(`the answer is not ${what} (not DER: ${parsed.result.error})`);
  if (parsed.offset !== bytes.byteLength)
    throw new TimestampCheckError(`the answer is not ${what} (${bytes.byteLength - parsed.offset} bytes after it)`);
  return parsed.result;
}

function nameOfCertificate(cert: pkijs.Certificate): string {
  const cn = cert.subject.typesAndValues.find((tv) => tv.type === '2.5.4.3');
  return cn ? String(cn.value.valueBlock.value) : `serial ${hex(cert.serialNumber.valueBlock.valueHexView)}`;
}

// ---- the client's query ----

export interface TimestampQuery {
  /** DER of the TimeStampReq. */
  der: Uint8Array;
  digest: Uint8Array;
  nonce: bigint;
  policy: string | null;
}

/** A TimeStampReq for a SHA-256 digest: a random 64-bit nonce, the TSA's certificate requested, a policy if given. */
export function timestampQuery(digest: Uint8Array, policy: string | null): TimestampQuery {
  if (digest.byteLength !== 32) throw new Error(`A SHA-256 digest has 32 bytes, not ${digest.byteLength}`);
  const nonce = BigInt(`0x${randomBytes(8).toString('hex')}`);
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: Oid.sha256, algorithmParams: new asn1js.Null() }),
      hashedMessage: new asn1js.OctetString({ valueHex: digest }),
    }),
    ...(policy ? { reqPolicy: policy } : {}),
    nonce: asn1js.Integer.fromBigInt(nonce),
    certReq: true,
  });
  return { der: new Uint8Array(request.toSchema().toBER(false)), digest, nonce, policy };
}

// ---- the checks on an answer ----

export interface ReplyChecks {
  query: TimestampQuery;
  /** Our clock, which genTime must be near. */
  now: Date;
  /** When set (TSA_CA_FILE), the TSA's certificate must chain to one of these at genTime. */
  trustAnchors?: pkijs.Certificate[];
}

/**
 * Every check of an answer before its token is used (RFC 3161 sections 2.4.2 and 2.3): status granted, a SignedData
 * over TSTInfo, our nonce and imprint, our policy, a sane genTime, the TSA's certificate named by ESSCertID(v2) and
 * carried in the token, valid then, for time-stamping only, and the signature verifying with its key. Throws
 * TimestampCheckError with the first reason.
 */
export async function checkTimestampReply(
  reply: Uint8Array,
  checks: ReplyChecks,
): Promise<Omit<TimestampToken, 'tsa'>> {
  const asn1 = parseDer(reply, 'a TimeStampResp');
  let response: pkijs.TimeStampResp;
  try {
    response = new pkijs.TimeStampResp({ schema: asn1 });
  } catch {
    throw new TimestampCheckError('the answer is not a TimeStampResp');
  }
  const status = response.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = (response.status.statusStrings ?? []).map((s) => printable(String(s.valueBlock.value))).join(' ');
    const failures = failureNames(response.status.failInfo);
    throw new TimestampCheckError(
      `the TSA refused: status ${STATUS_NAMES[status] ?? status}${failures ? ` (${failures})` : ''}${text ? `: "${text}"` : ''}`,
    );
  }
  if (!response.timeStampToken) throw new TimestampCheckError('the answer is granted but carries no token');
  const tokenBytes = new Uint8Array(
    ((asn1 as asn1js.Sequence).valueBlock.value[1] as asn1js.BaseBlock).valueBeforeDecodeView,
  );
  if (response.timeStampToken.contentType !== Oid.signedData)
    throw new TimestampCheckError(`the token is not SignedData (${response.timeStampToken.contentType})`);

  let signed: TokenParts;
  let tstInfo: pkijs.TSTInfo;
  let content: ArrayBuffer;
  try {
    signed = tokenParts(response.timeStampToken.content);
  } catch {
    throw new TimestampCheckError('the token is not a valid SignedData');
  }
  if (signed.encapContentInfo.eContentType !== Oid.tstInfo || !signed.encapContentInfo.eContent)
    throw new TimestampCheckError(`the token does not hold a TSTInfo (${signed.encapContentInfo.eContentType})`);
  try {
    content = signed.encapContentInfo.eContent.getValue();
    tstInfo = new pkijs.TSTInfo({ schema: parseDer(new Uint8Array(content), 'a TSTInfo') });
  } catch {
    throw new TimestampCheckError('the token does not hold a valid TSTInfo');
  }
  if (tstInfo.version !== 1) throw new TimestampCheckError(`TSTInfo version ${tstInfo.version}, not 1`);
  if (signed.signerInfos.length !== 1)
    throw new TimestampCheckError(`the token has ${signed.signerInfos.length} signers, not 1`);

  const { query } = checks;
  const nonce = tstInfo.nonce?.toBigInt();
  if (nonce === undefined) throw new TimestampCheckError('the token carries no nonce');
  if (nonce !== query.nonce)
    throw new TimestampCheckError(`the nonce differs (sent ${query.nonce.toString(16)}, got ${nonce.toString(16)})`);
  const imprint = tstInfo.messageImprint;
  const params = imprint.hashAlgorithm.algorithmParams as asn1js.AsnType | undefined;
  if (imprint.hashAlgorithm.algorithmId !== Oid.sha256 || (params && !(params instanceof asn1js.Null)))
    throw new TimestampCheckError(
      `the message imprint's algorithm is ${imprint.hashAlgorithm.algorithmId}, not SHA-256`,
    );
  if (!sameBytes(imprint.hashedMessage.valueBlock.valueHexView, query.digest))
    throw new TimestampCheckError(
      `the message imprint differs (sent ${hex(query.digest)}, got ${hex(imprint.hashedMessage.valueBlock.valueHexView)})`,
    );
  const policy = oidText(tstInfo.policy);
  if (query.policy && policy !== query.policy)
    throw new TimestampCheckError(`the policy is ${policy}, not the requested ${query.policy}`);
  const genTime = tstInfo.genTime;
  if (!(genTime instanceof Date) || Number.isNaN(genTime.getTime()))
    throw new TimestampCheckError('the token has no valid genTime');
  if (Math.abs(genTime.getTime() - checks.now.getTime()) > GEN_TIME_TOLERANCE_MS)
    throw new TimestampCheckError(
      `genTime ${genTime.toISOString()} is more than ${GEN_TIME_TOLERANCE_MS / 60_000} minutes from our clock (${checks.now.toISOString()})`,
    );

  const signerInfo = signed.signerInfos[0];
  const encoded = signed.certificates;
  const certificates = [...encoded.keys()];
  const tsaCert = signingCertificate(signerInfo, encoded);
  checkTsaCertificate(tsaCert, genTime);
  await checkSignature(signerInfo, content, tsaCert);
  if (checks.trustAnchors) await checkChain(tsaCert, certificates, checks.trustAnchors, genTime);

  return {
    token: tokenBytes,
    time: genTime,
    serial: hex(tstInfo.serialNumber.valueBlock.valueHexView),
    policy,
    certificates: [tsaCert, ...certificates.filter((c) => c !== tsaCert)].map((c) => encoded.get(c)!),
  };
}

interface TokenParts {
  encapContentInfo: pkijs.EncapsulatedContentInfo;
  signerInfos: pkijs.SignerInfo[];
  /** The certificates the token carries, each with its DER as carried. */
  certificates: Map<pkijs.Certificate, Uint8Array>;
}

/** SignedData (RFC 5652) with the certificates, CRLs and signers taken as they come: each is then read on its own. */
const SIGNED_DATA_OUTLINE = new asn1js.Sequence({
  value: [
    new asn1js.Integer(),
    new asn1js.Set({ value: [new asn1js.Repeated({ value: new asn1js.Any() })] }),
    new asn1js.Any({ name: 'encapContentInfo' }),
    new asn1js.Constructed({
      optional: true,
      idBlock: { tagClass: 3, tagNumber: 0 },
      value: [new asn1js.Repeated({ name: 'certificates', value: new asn1js.Any() })],
    }),
    new asn1js.Constructed({
      optional: true,
      idBlock: { tagClass: 3, tagNumber: 1 },
      value: [new asn1js.Repeated({ value: new asn1js.Any() })],
    }),
    new asn1js.Set({ value: [new asn1js.Repeated({ name: 'signerInfos', value: new asn1js.Any() })] }),
  ],
});

/**
 * Parsed certificates by their DER (base64): a TSA signs every token with the same certificate, and reading one with
 * pkijs is most of the cost of checking a token. Bounded; certificates are never changed once read.
 */
const certificateCache = new Map<string, pkijs.Certificate>();

function certificateOf(bytes: Uint8Array): pkijs.Certificate {
  const key = Buffer.from(bytes).toString('base64');
  let cert = certificateCache.get(key);
  if (!cert) {
    cert = pkijs.Certificate.fromBER(bytes);
    if (certificateCache.size >= 64) certificateCache.clear();
    certificateCache.set(key, cert);
  }
  return cert;
}

/**
 * The parts of a token's SignedData that the checks use. pkijs.SignedData would read the whole structure twice
 * (its schema, then each certificate's own) for every token; this reads the outline once, and each part with its pkijs
 * class.
 */
function tokenParts(content: asn1js.AsnType): TokenParts {
  const outline = asn1js.compareSchema(content, content, SIGNED_DATA_OUTLINE);
  if (!outline.verified) throw new Error('not a SignedData');
  const result = outline.result as Record<string, asn1js.AsnType | asn1js.AsnType[] | undefined>;
  const asList = (v: asn1js.AsnType | asn1js.AsnType[] | undefined) => (Array.isArray(v) ? v : v ? [v] : []);
  const certificates = new Map<pkijs.Certificate, Uint8Array>();
  for (const node of asList(result.certificates)) {
    // CertificateChoices: only plain certificates (a universal SEQUENCE); attribute certificates are tagged.
    if (!(node instanceof asn1js.Sequence)) continue;
    const bytes = new Uint8Array(node.valueBeforeDecodeView);
    certificates.set(certificateOf(bytes), bytes);
  }
  return {
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ schema: result.encapContentInfo }),
    signerInfos: asList(result.signerInfos).map((schema) => new pkijs.SignerInfo({ schema })),
    certificates,
  };
}

function failureNames(failInfo: asn1js.BitString | undefined): string {
  if (!failInfo) return '';
  const bytes = failInfo.valueBlock.valueHexView;
  const names: string[] = [];
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    if (bytes[bit >> 3] & (0x80 >> (bit & 7))) names.push(FAILURE_NAMES[bit] ?? `failure bit ${bit}`);
  }
  return names.join(', ');
}

function signedAttribute(signerInfo: pkijs.SignerInfo, type: string): pkijs.Attribute | undefined {
  return signerInfo.signedAttrs?.attributes.find((a) => a.type === type);
}

/**
 * The TSA's certificate: the one the signing-certificate(-v2) attribute names by hash (RFC 3161 section 2.4.2, RFC 5035),
 * found among the token's certificates, and the one the SignerInfo names.
 */
function signingCertificate(
  signerInfo: pkijs.SignerInfo,
  certificates: Map<pkijs.Certificate, Uint8Array>,
): pkijs.Certificate {
  const v2 = signedAttribute(signerInfo, Oid.signingCertificateV2);
  const v1 = signedAttribute(signerInfo, Oid.signingCertificate);
  const attribute = v2 ?? v1;
  if (!attribute)
    throw new TimestampCheckError('the token has no signing-certificate attribute (ESSCertID or ESSCertIDv2)');
  let hashOid: string = v2 ? Oid.sha256 : Oid.sha1;
  let certHash: Uint8Array;
  let issuerSerial: pkijs.IssuerSerial | null = null;
  try {
    // SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2), ... }; the first names the signer.
    const first = ((attribute.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock
      .value[0] as asn1js.Sequence;
    const parts = [...first.valueBlock.value];
    if (v2 && parts[0] instanceof asn1js.Sequence)
      hashOid = new pkijs.AlgorithmIdentifier({ schema: parts.shift() }).algorithmId;
    if (!(parts[0] instanceof asn1js.OctetString)) throw new Error('no certHash');
    certHash = new Uint8Array(parts[0].valueBlock.valueHexView);
    if (parts[1] instanceof asn1js.Sequence) issuerSerial = new pkijs.IssuerSerial({ schema: parts[1] });
  } catch {
    throw new TimestampCheckError('the signing-certificate attribute is not a valid ESSCertID');
  }
  const hashName = ESS_DIGESTS[hashOid];
  if (!hashName) throw new TimestampCheckError(`the ESSCertID hash algorithm ${hashOid} is not supported`);
  const cert = [...certificates].find(([, bytes]) =>
    sameBytes(createHash(hashName).update(bytes).digest(), certHash),
  )?.[0];
  if (!cert) throw new TimestampCheckError("the TSA's certificate named by ESSCertID is not in the token");
  if (issuerSerial) {
    const sameIssuer = issuerSerial.issuer.names.some((n) => n.type === 4 && cert.issuer.isEqual(n.value));
    if (!sameIssuer || !issuerSerial.serialNumber.isEqual(cert.serialNumber))
      throw new TimestampCheckError("the ESSCertID's issuer and serial do not match the TSA's certificate");
  }
  const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber | asn1js.Constructed | asn1js.Primitive;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    if (!cert.issuer.isEqual(sid.issuer) || !cert.serialNumber.isEqual(sid.serialNumber))
      throw new TimestampCheckError("the SignerInfo names another certificate than the ESSCertID's");
  } else {
    const keyId = sid.idBlock.isConstructed
      ? ((sid as asn1js.Constructed).valueBlock.value[0] as asn1js.OctetString).valueBlock.valueHexView
      : (sid as asn1js.Primitive).valueBlock.valueHexView;
    const ski = createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
    const skiExtension = cert.extensions?.find((e) => e.extnID === '2.5.29.14')?.parsedValue as
      asn1js.OctetString | undefined;
    const declared = skiExtension?.valueBlock.valueHexView;
    if (!sameBytes(keyId, ski) && !(declared && sameBytes(keyId, declared)))
      throw new TimestampCheckError("the SignerInfo names another certificate than the ESSCertID's");
  }
  return cert;
}

/** Valid at genTime, extended key usage id-kp-timeStamping only and critical (RFC 3161 section 2.3). */
function checkTsaCertificate(cert: pkijs.Certificate, genTime: Date): void {
  const name = nameOfCertificate(cert);
  if (genTime < cert.notBefore.value || genTime > cert.notAfter.value)
    throw new TimestampCheckError(
      `the TSA's certificate "${name}" is not valid at genTime (${cert.notBefore.value.toISOString()} to ${cert.notAfter.value.toISOString()})`,
    );
  const eku = cert.extensions?.find((e) => e.extnID === Oid.extKeyUsage);
  const purposes = (eku?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  if (!eku || !purposes.includes(Oid.timeStamping))
    throw new TimestampCheckError(`the TSA's certificate "${name}" has no extended key usage id-kp-timeStamping`);
  if (purposes.length !== 1)
    throw new TimestampCheckError(
      `the TSA's certificate "${name}" has other extended key usages than id-kp-timeStamping (${purposes.join(', ')})`,
    );
  if (!eku.critical)
    throw new TimestampCheckError(`the TSA's certificate "${name}" has a non-critical extended key usage`);
}

/** The signed attributes name TSTInfo and its digest, and the TSA's key signed them. */
async function checkSignature(
  signerInfo: pkijs.SignerInfo,
  content: ArrayBuffer,
  cert: pkijs.Certificate,
): Promise<void> {
  const contentType = signedAttribute(signerInfo, Oid.contentType)?.values[0] as asn1js.ObjectIdentifier | undefined;
  if (contentType?.valueBlock.toString() !== Oid.tstInfo)
    throw new TimestampCheckError('the signed content-type attribute is not TSTInfo');
  const digestAttribute = signedAttribute(signerInfo, Oid.messageDigest)?.values[0] as asn1js.OctetString | undefined;
  const digest = DIGESTS[signerInfo.digestAlgorithm.algorithmId];
  if (!digest)
    throw new TimestampCheckError(
      `the token's digest algorithm ${signerInfo.digestAlgorithm.algorithmId} is not accepted`,
    );
  const actual = await tspCrypto.digest({ name: digest.name }, content);
  if (!digestAttribute || !sameBytes(digestAttribute.valueBlock.valueHexView, actual))
    throw new TimestampCheckError("the token's message-digest attribute does not match its TSTInfo");
  let verified = false;
  try {
    verified = await tspCrypto.verifyWithPublicKey(
      signerInfo.signedAttrs!.encodedValue,
      signerInfo.signature,
      cert.subjectPublicKeyInfo,
      signerInfo.signatureAlgorithm,
      digest.name,
    );
  } catch (err) {
    throw new TimestampCheckError(`the token's signature cannot be checked: ${printable((err as Error).message)}`);
  }
  if (!verified) throw new TimestampCheckError("the token's signature does not verify with the TSA's certificate");
}

/** TSA_CA_FILE: the TSA's certificate chains to one of the anchors, each certificate valid at genTime. */
async function checkChain(
  cert: pkijs.Certificate,
  certificates: pkijs.Certificate[],
  anchors: pkijs.Certificate[],
  genTime: Date,
): Promise<void> {
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: anchors,
    certs: [...certificates.filter((c) => c !== cert), cert],
    checkDate: genTime,
  });
  let result: { result: boolean; resultMessage: string };
  try {
    result = await engine.verify({}, tspCrypto);
  } catch (err) {
    result = { result: false, resultMessage: (err as { resultMessage?: string }).resultMessage ?? String(err) };
  }
  if (!result.result)
    throw new TimestampCheckError(
      `the TSA's certificate "${nameOfCertificate(cert)}" does not chain to TSA_CA_FILE: ${printable(result.resultMessage)}`,
    );
}

/** Reads a PEM certificate (or a bundle: every certificate in it) into pkijs certificates. */
export function certificatesFromPem(text: string): pkijs.Certificate[] {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    const body = block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');
    return pkijs.Certificate.fromBER(Buffer.from(body, 'base64'));
  });
}
