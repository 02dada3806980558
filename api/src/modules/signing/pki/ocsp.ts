import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { parsedCertificate, perCertificate } from './parsed-certificates';

/**
 * OCSP (RFC 6960) and CRLs (RFC 5280 section 5) with maintained libraries: pkijs/asn1js for OCSP requests and
 * responses, @peculiar/x509 for CRLs. Both sides: what the development PKI's responder answers, and what the product
 * checks in answers from other CAs' responders. Pure functions; times and keys come from the caller.
 */

type CryptoKey = webcrypto.CryptoKey;

// One engine on Node's WebCrypto, passed explicitly: @libpdf/core installs its own as pkijs's global one.
const engine = new pkijs.CryptoEngine({
  name: 'esign-node',
  crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'],
});
type WebCrypto = Parameters<typeof x509.X509CrlGenerator.create>[1];

export const ID_PKIX_OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
const ID_PKIX_OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';
const ID_CE_CRL_NUMBER = '2.5.29.20';
const HASHES: Record<string, 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512'> = {
  '1.3.14.3.2.26': 'SHA-1',
  '2.16.840.1.101.3.4.2.1': 'SHA-256',
  '2.16.840.1.101.3.4.2.2': 'SHA-384',
  '2.16.840.1.101.3.4.2.3': 'SHA-512',
};
/** How far another party's clock may be from ours when a response's times are checked (OpenSSL's and NSS's default). */
const SKEW_MS = 5 * 60_000;
/** A response without nextUpdate ("newer information is always available") is used only this fresh. */
const MAX_AGE_WITHOUT_NEXT_UPDATE_MS = 24 * 3_600_000;
/** At most this many certificates in one OCSP request. */
export const MAX_OCSP_QUERIES = 16;

/** OCSPResponseStatus (RFC 6960 4.2.1). */
export const OcspResponseStatus = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
} as const;
export type OcspResponseStatusName = keyof typeof OcspResponseStatus;

/** CRLReason (RFC 5280 5.3.1), by name, as `manage revoke-certificate --reason` takes it. */
export const CRL_REASONS = {
  unspecified: x509.X509CrlReason.unspecified,
  keyCompromise: x509.X509CrlReason.keyCompromise,
  cACompromise: x509.X509CrlReason.cACompromise,
  affiliationChanged: x509.X509CrlReason.affiliationChanged,
  superseded: x509.X509CrlReason.superseded,
  cessationOfOperation: x509.X509CrlReason.cessationOfOperation,
  privilegeWithdrawn: x509.X509CrlReason.privilegeWithdrawn,
  aACompromise: x509.X509CrlReason.aACompromise,
} as const;
export type RevocationReason = keyof typeof CRL_REASONS;
export const REVOCATION_REASONS = Object.keys(CRL_REASONS) as RevocationReason[];
const reasonName = (code: number | undefined): string | null =>
  code === undefined ? null : (x509.X509CrlReason[code] ?? `reason ${code}`);

/** A certificate's status as a responder or a CRL tells it. */
export type CertStatus =
  { status: 'good' } | { status: 'revoked'; revokedAt: Date; reason: string | null } | { status: 'unknown' };

/** The request is not an OCSP request we can read: answered `malformedRequest`. */
export class MalformedOcspRequest extends Error {}

/** An answer (OCSP response or CRL) that cannot be relied on, and why. */
export class RevocationDataError extends Error {}

/** One certificate asked about in an OCSP request: its CertID, and its parts in hex. */
export interface OcspQuery {
  certId: pkijs.CertID;
  hashAlgorithm: 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512' | null;
  issuerNameHash: string;
  issuerKeyHash: string;
  serial: string;
}

export interface ParsedOcspRequest {
  queries: OcspQuery[];
  /** The nonce extension, echoed as it came (RFC 8954). */
  nonce: pkijs.Extension | null;
}

/** Whole seconds: RFC 5280 and 6960 times carry no fractions, and NSS (pdfsig, Firefox) refuses those that do. */
const seconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as Uint8Array).toString('hex');

/** Lower-case hex without leading zeros: how the registry, `manage` and this module spell a serial number. */
export function normaliseSerial(text: string): string {
  const digits = text.trim().replace(/^0x/i, '').replace(/[\s:]/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(digits)) throw new Error(`"${text}" is not a serial number in hexadecimal`);
  const stripped = digits.replace(/^0+/, '');
  return stripped || '0';
}

const integerSerial = (integer: asn1js.Integer) => normaliseSerial(hex(integer.valueBlock.valueHexView) || '0');

function parse<T>(bytes: Uint8Array, make: (schema: asn1js.AsnType) => T): T {
  const asn1 = asn1js.fromBER(bytes);
  if (asn1.offset === -1 || asn1.offset !== bytes.byteLength) throw new Error('not one DER value');
  return make(asn1.result);
}

/** Reads an OCSP request (its optional signature is not required, and not checked). */
export function parseOcspRequest(bytes: Uint8Array): ParsedOcspRequest {
  let request: pkijs.OCSPRequest;
  try {
    request = parse(bytes, (schema) => new pkijs.OCSPRequest({ schema }));
  } catch (err) {
    throw new MalformedOcspRequest(`not an OCSP request: ${(err as Error).message}`);
  }
  const list = request.tbsRequest.requestList;
  if (!list.length) throw new MalformedOcspRequest('the request names no certificate');
  if (list.length > MAX_OCSP_QUERIES)
    throw new MalformedOcspRequest(`the request names more than ${MAX_OCSP_QUERIES} certificates`);
  const queries = list.map(({ reqCert }) => ({
    certId: reqCert,
    hashAlgorithm: HASHES[reqCert.hashAlgorithm.algorithmId] ?? null,
    issuerNameHash: hex(reqCert.issuerNameHash.valueBlock.valueHexView),
    issuerKeyHash: hex(reqCert.issuerKeyHash.valueBlock.valueHexView),
    serial: integerSerial(reqCert.serialNumber),
  }));
  const nonce = request.tbsRequest.requestExtensions?.find((e) => e.extnID === ID_PKIX_OCSP_NONCE) ?? null;
  return { queries, nonce };
}

/** An OCSPResponse without responseBytes: every status but `successful`. */
export function ocspErrorResponse(status: Exclude<OcspResponseStatusName, 'successful'>): Uint8Array {
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: OcspResponseStatus[status] }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

function certStatusSchema(status: CertStatus): asn1js.AsnType {
  switch (status.status) {
    case 'good':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
    case 'unknown':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 } });
    case 'revoked': {
      const value: asn1js.AsnType[] = [new asn1js.GeneralizedTime({ valueDate: seconds(status.revokedAt) })];
      const code = status.reason ? CRL_REASONS[status.reason as RevocationReason] : undefined;
      if (code !== undefined)
        value.push(
          new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 0 },
            value: [new asn1js.Enumerated({ value: code })],
          }),
        );
      return new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value });
    }
  }
}

/** Who signs: a certificate (DER) and its private key. */
export interface SigningKey {
  certDer: Uint8Array;
  key: CryptoKey;
}

const signingHash = (key: CryptoKey): 'SHA-256' | 'SHA-384' =>
  key.algorithm.name === 'ECDSA' && (key.algorithm as webcrypto.EcKeyAlgorithm).namedCurve !== 'P-256'
    ? 'SHA-384'
    : 'SHA-256';

/**
 * A certificate as pkijs reads it, parsed once per DER (the CA's, the responder's and the TSA's are asked for again
 * for every OCSP answer and timestamp of a seal). Only read here: CertID.create and the responses built from it take
 * their values without changing it.
 */
function pkijsCertificate(der: Uint8Array): pkijs.Certificate {
  const key = Buffer.from(der).toString('base64');
  let certificate = pkijsParsed.get(key);
  if (!certificate) {
    certificate = parse(der, (schema) => new pkijs.Certificate({ schema }));
    if (pkijsParsed.size >= 256) pkijsParsed.clear();
    pkijsParsed.set(key, certificate);
  }
  return certificate;
}
const pkijsParsed = new Map<string, pkijs.Certificate>();

/**
 * A successful basic OCSP response signed by `signer` (the CA's delegated responder, RFC 6960 4.2.2.2), one
 * SingleResponse per query with thisUpdate = now and nextUpdate = now + validity, the request's nonce echoed, the
 * signer's certificate attached.
 */
export async function signOcspResponse(params: {
  signer: SigningKey;
  answers: { certId: pkijs.CertID; status: CertStatus }[];
  nonce: pkijs.Extension | null;
  now: Date;
  validityMs: number;
}): Promise<Uint8Array> {
  const signerCert = pkijsCertificate(params.signer.certDer);
  const now = seconds(params.now);
  const nextUpdate = new Date(now.getTime() + params.validityMs);
  const basic = new pkijs.BasicOCSPResponse();
  basic.tbsResponseData.responderID = signerCert.subject;
  basic.tbsResponseData.producedAt = now;
  basic.tbsResponseData.responses = params.answers.map(
    ({ certId, status }) =>
      new pkijs.SingleResponse({
        certID: certId,
        certStatus: certStatusSchema(status),
        thisUpdate: now,
        nextUpdate,
      }),
  );
  if (params.nonce) basic.tbsResponseData.responseExtensions = [params.nonce];
  basic.certs = [signerCert];
  await basic.sign(
    params.signer.key as unknown as Parameters<pkijs.BasicOCSPResponse['sign']>[0],
    signingHash(params.signer.key),
    engine,
  );
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: OcspResponseStatus.successful }),
    responseBytes: new pkijs.ResponseBytes({
      responseType: ID_PKIX_OCSP_BASIC,
      response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
    }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

/** The CertID (SHA-1, as responders expect) of a certificate issued by `issuerPem`. */
export async function certIdFor(certDer: Uint8Array, issuerPem: string): Promise<pkijs.CertID> {
  const issuer = pkijsCertificate(new Uint8Array(parsedCertificate(issuerPem).rawData));
  return pkijs.CertID.create(pkijsCertificate(certDer), { hashAlgorithm: 'SHA-1', issuerCertificate: issuer }, engine);
}

/** An OCSP request for one certificate (SHA-1 CertID, as responders expect), with a nonce. */
export async function ocspRequestFor(
  certDer: Uint8Array,
  issuerDer: Uint8Array,
  nonce: Uint8Array,
): Promise<Uint8Array> {
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(
    pkijsCertificate(certDer),
    { hashAlgorithm: 'SHA-1', issuerCertificate: pkijsCertificate(issuerDer) },
    engine,
  );
  request.tbsRequest.requestExtensions = [
    new pkijs.Extension({
      extnID: ID_PKIX_OCSP_NONCE,
      extnValue: new asn1js.OctetString({ valueHex: nonce }).toBER(false),
    }),
  ];
  return new Uint8Array(request.toSchema(true).toBER(false));
}

/** A checked OCSP answer about one certificate. */
export interface OcspAnswer {
  status: CertStatus;
  thisUpdate: Date;
  nextUpdate: Date | null;
  producedAt: Date;
}

/**
 * Reads an OCSP response about `certDer` (issued by `issuerDer`) and checks it: status successful, a basic response,
 * signed by the issuer itself or by a responder certificate the issuer issued for OCSP signing (id-kp-OCSPSigning,
 * valid now), a SingleResponse whose CertID is that certificate's, not from the future, not expired, and the nonce we
 * sent when the responder echoes one. Throws RevocationDataError saying what is wrong.
 */
export async function readOcspResponse(
  bytes: Uint8Array,
  expected: { certDer: Uint8Array; issuerDer: Uint8Array; now: Date; nonce?: Uint8Array },
): Promise<OcspAnswer> {
  let response: pkijs.OCSPResponse;
  try {
    response = parse(bytes, (schema) => new pkijs.OCSPResponse({ schema }));
  } catch (err) {
    throw new RevocationDataError(`not an OCSP response (${(err as Error).message})`);
  }
  const code = response.responseStatus.valueBlock.valueDec;
  if (code !== OcspResponseStatus.successful) {
    const name = Object.entries(OcspResponseStatus).find(([, v]) => v === code)?.[0] ?? String(code);
    throw new RevocationDataError(`the responder answered ${name}`);
  }
  if (!response.responseBytes || response.responseBytes.responseType !== ID_PKIX_OCSP_BASIC)
    throw new RevocationDataError('not a basic OCSP response');
  let basic: pkijs.BasicOCSPResponse;
  try {
    basic = parse(
      response.responseBytes.response.valueBlock.valueHexView,
      (schema) => new pkijs.BasicOCSPResponse({ schema }),
    );
  } catch (err) {
    throw new RevocationDataError(`unreadable basic OCSP response (${(err as Error).message})`);
  }
  const cert = pkijsCertificate(expected.certDer);
  const issuer = pkijsCertificate(expected.issuerDer);

  // Which SingleResponse is about our certificate (its CertID made with the response's own hash algorithm).
  let single: pkijs.SingleResponse | undefined;
  for (const candidate of basic.tbsResponseData.responses) {
    const name = HASHES[candidate.certID.hashAlgorithm.algorithmId];
    if (!name) continue;
    const ours = await pkijs.CertID.create(cert, { hashAlgorithm: name, issuerCertificate: issuer }, engine);
    if (ours.isEqual(candidate.certID)) {
      single = candidate;
      break;
    }
  }
  if (!single) throw new RevocationDataError('the response is not about this certificate');

  // Who signed it: the issuer itself, or a responder certificate the issuer issued for OCSP signing (RFC 6960 4.2.2.2).
  const signer = await responderOf(basic, issuer, expected.now);
  if (!signer) throw new RevocationDataError('the response is not signed by the issuer or a responder it authorised');

  const now = expected.now.getTime();
  const thisUpdate = single.thisUpdate;
  const nextUpdate = single.nextUpdate ?? null;
  if (thisUpdate.getTime() > now + SKEW_MS) throw new RevocationDataError('the response is from the future');
  if (nextUpdate && nextUpdate.getTime() < now - SKEW_MS) throw new RevocationDataError('the response has expired');
  if (!nextUpdate && thisUpdate.getTime() < now - MAX_AGE_WITHOUT_NEXT_UPDATE_MS)
    throw new RevocationDataError('the response is stale');
  const echoed = basic.tbsResponseData.responseExtensions?.find((e) => e.extnID === ID_PKIX_OCSP_NONCE);
  if (echoed && expected.nonce) {
    const sent = new asn1js.OctetString({ valueHex: expected.nonce }).toBER(false);
    if (!Buffer.from(echoed.extnValue.valueBlock.valueHexView).equals(Buffer.from(sent)))
      throw new RevocationDataError('the response carries another nonce than the request');
  }
  return {
    status: readCertStatus(single.certStatus),
    thisUpdate,
    nextUpdate,
    producedAt: basic.tbsResponseData.producedAt,
  };
}

async function responderOf(
  basic: pkijs.BasicOCSPResponse,
  issuer: pkijs.Certificate,
  now: Date,
): Promise<pkijs.Certificate | null> {
  const id = basic.tbsResponseData.responderID;
  const named = async (cert: pkijs.Certificate) => {
    if (id instanceof pkijs.RelativeDistinguishedNames) return cert.subject.isEqual(id);
    const key = cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
    const digest = createHash('sha1').update(key).digest();
    return digest.equals(Buffer.from((id as asn1js.OctetString).valueBlock.valueHexView));
  };
  const issuerDer = Buffer.from(issuer.toSchema().toBER(false));
  for (const candidate of [issuer, ...(basic.certs ?? [])]) {
    if (!(await named(candidate))) continue;
    const signed = await engine
      .verifyWithPublicKey(
        basic.tbsResponseData.tbsView,
        basic.signature,
        candidate.subjectPublicKeyInfo,
        basic.signatureAlgorithm,
      )
      .catch(() => false);
    if (!signed) continue;
    if (Buffer.from(candidate.toSchema().toBER(false)).equals(issuerDer)) return candidate;
    // A delegated responder: issued by the issuer, for OCSP signing, valid now.
    const delegated = new x509.X509Certificate(Buffer.from(candidate.toSchema().toBER(false)));
    const eku = delegated.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [];
    if (!eku.includes(x509.ExtendedKeyUsage.ocspSigning)) continue;
    if (!candidate.issuer.isEqual(issuer.subject)) continue;
    if (!(await candidate.verify(issuer, engine).catch(() => false))) continue;
    const at = now.getTime();
    if (delegated.notBefore.getTime() > at + SKEW_MS || delegated.notAfter.getTime() < at - SKEW_MS) continue;
    return candidate;
  }
  return null;
}

function readCertStatus(schema: asn1js.AsnType): CertStatus {
  const block = schema as asn1js.BaseBlock;
  if (block.idBlock.tagClass !== 3) throw new RevocationDataError('unreadable certificate status');
  switch (block.idBlock.tagNumber) {
    case 0:
      return { status: 'good' };
    case 2:
      return { status: 'unknown' };
    case 1: {
      // RevokedInfo ::= SEQUENCE { revocationTime GeneralizedTime, revocationReason [0] EXPLICIT CRLReason OPTIONAL },
      // implicitly tagged [1]: asn1js reads its contents as a sequence of blocks.
      const value = (schema as asn1js.Constructed).valueBlock?.value ?? [];
      const time = value[0];
      if (!(time instanceof asn1js.GeneralizedTime)) throw new RevocationDataError('unreadable revocation time');
      const reasonBlock = value[1] as asn1js.Constructed | undefined;
      const enumerated = reasonBlock?.valueBlock?.value?.[0];
      const code = enumerated instanceof asn1js.Enumerated ? enumerated.valueBlock.valueDec : undefined;
      return { status: 'revoked', revokedAt: time.toDate(), reason: reasonName(code) };
    }
    default:
      throw new RevocationDataError('unreadable certificate status');
  }
}

/** SHA-1 and SHA-256 of a certificate's subjectPublicKey value: how an OCSP CertID names the issuing CA. */
export const keyHashes = perCertificate((certPem: string): Readonly<{ sha1: string; sha256: string }> => {
  const spki = pkijsCertificate(new Uint8Array(parsedCertificate(certPem).rawData));
  const key = Buffer.from(spki.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  return Object.freeze({
    sha1: createHash('sha1').update(key).digest('hex'),
    sha256: createHash('sha256').update(key).digest('hex'),
  });
});

/** The hash of a certificate's subject, as an OCSP CertID's issuerNameHash names the issuer. */
export function nameHash(certPem: string, algorithm: 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512'): string {
  const cert = pkijsCertificate(new Uint8Array(parsedCertificate(certPem).rawData));
  return createHash(algorithm.replace('-', '').toLowerCase())
    .update(Buffer.from(cert.subject.toSchema().toBER(false)))
    .digest('hex');
}

/** A CRL signed by the CA: every revoked certificate with its date and reason, a CRL number, thisUpdate, nextUpdate. */
export async function signCrl(params: {
  caCertPem: string;
  key: CryptoKey;
  entries: { serial: string; revokedAt: Date; reason: string | null }[];
  number: bigint;
  now: Date;
  validityMs: number;
}): Promise<Uint8Array> {
  const ca = new x509.X509Certificate(params.caCertPem);
  const keyId =
    ca.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ??
    (await x509.SubjectKeyIdentifierExtension.create(ca.publicKey)).keyId;
  const algorithm =
    params.key.algorithm.name === 'ECDSA'
      ? { name: 'ECDSA', hash: signingHash(params.key) }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const crl = await x509.X509CrlGenerator.create(
    {
      issuer: ca.subjectName,
      thisUpdate: seconds(params.now),
      nextUpdate: new Date(seconds(params.now).getTime() + params.validityMs),
      signingAlgorithm: algorithm,
      signingKey: params.key,
      entries: params.entries.map((e) => ({
        serialNumber: e.serial.length % 2 ? `0${e.serial}` : e.serial,
        revocationDate: seconds(e.revokedAt),
        reason: e.reason ? CRL_REASONS[e.reason as RevocationReason] : undefined,
      })),
      extensions: [
        new x509.AuthorityKeyIdentifierExtension(keyId),
        new x509.Extension(ID_CE_CRL_NUMBER, false, asn1js.Integer.fromBigInt(params.number).toBER(false)),
      ],
    },
    webcrypto as unknown as WebCrypto,
  );
  return new Uint8Array(crl.rawData);
}

/** A checked CRL's word on one certificate. */
export interface CrlAnswer {
  status: CertStatus;
  thisUpdate: Date;
  nextUpdate: Date | null;
}

/**
 * Reads a CRL (DER, or PEM) issued by `issuerDer` and checks it: the issuer's name, its signature with the issuer's
 * key, not from the future, not past its nextUpdate; then whether it lists `serial`.
 */
export async function readCrl(
  bytes: Uint8Array,
  expected: { issuerDer: Uint8Array; serial: string; now: Date },
): Promise<CrlAnswer> {
  let crl: x509.X509Crl;
  try {
    const text = Buffer.from(bytes.subarray(0, 64)).toString('latin1');
    crl = new x509.X509Crl(text.includes('-----BEGIN') ? Buffer.from(bytes).toString('latin1') : Buffer.from(bytes));
  } catch (err) {
    throw new RevocationDataError(`not a CRL (${(err as Error).message})`);
  }
  const issuer = new x509.X509Certificate(expected.issuerDer);
  if (crl.issuer !== issuer.subject) throw new RevocationDataError(`the CRL is issued by "${crl.issuer}"`);
  const verified = await crl.verify({ publicKey: issuer }, webcrypto as unknown as WebCrypto).catch(() => false);
  if (!verified) throw new RevocationDataError("the CRL's signature is not the issuer's");
  const now = expected.now.getTime();
  if (crl.thisUpdate.getTime() > now + SKEW_MS) throw new RevocationDataError('the CRL is from the future');
  if (crl.nextUpdate && crl.nextUpdate.getTime() < now - SKEW_MS) throw new RevocationDataError('the CRL has expired');
  const serial = normaliseSerial(expected.serial);
  const entry = crl.entries.find((e) => normaliseSerial(e.serialNumber) === serial);
  return {
    status: entry
      ? { status: 'revoked', revokedAt: entry.revocationDate, reason: reasonName(entry.reason) }
      : { status: 'good' },
    thisUpdate: crl.thisUpdate,
    nextUpdate: crl.nextUpdate ?? null,
  };
}
