import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  certificatesFromPem,
  der,
  DIGESTS,
  FAILURE_NAMES,
  Oid,
  oidText,
  parseDer,
  tspCrypto,
  type FailureName,
} from './tsp';

/**
 * The answering side of RFC 3161 (section 2.4.2): what the built-in development TSA answers, and how the tests' TSAs
 * answer what OpenSSL will not (a certificate without the timeStamping EKU, a clock that is off).
 */

/** What a TSA signs with: its certificate and key (RSA or ECDSA, as WebCrypto keys). */
export interface TsaSigner {
  certificate: pkijs.Certificate;
  /** The certificate's DER, kept: ESSCertIDv2 hashes it for every token. */
  certificateDer: Uint8Array;
  key: webcrypto.CryptoKey;
}

/** The TSA's private key (PKCS#8 PEM) as a WebCrypto signing key for its certificate's algorithm. */
export async function tsaSigner(certPem: string, keyPem: string): Promise<TsaSigner> {
  const [certificate] = certificatesFromPem(certPem);
  if (!certificate) throw new Error('No certificate in the TSA certificate PEM');
  const pkcs8 = Buffer.from(keyPem.replace(/-----(BEGIN|END) PRIVATE KEY-----|\s+/g, ''), 'base64');
  const algorithm = certificate.subjectPublicKeyInfo.algorithm.algorithmId;
  const curveOid = (
    certificate.subjectPublicKeyInfo.algorithm.algorithmParams as asn1js.ObjectIdentifier | undefined
  )?.valueBlock?.toString();
  const curves: Record<string, string> = {
    '1.2.840.10045.3.1.7': 'P-256',
    '1.3.132.0.34': 'P-384',
    '1.3.132.0.35': 'P-521',
  };
  const params =
    algorithm === '1.2.840.10045.2.1'
      ? { name: 'ECDSA', namedCurve: curves[curveOid ?? ''] ?? 'P-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, params, false, ['sign']);
  return { certificate, certificateDer: der(certificate), key };
}

export interface TsaAnswerOptions {
  now: Date;
  policy: string;
  /** Positive, at most 160 bits (RFC 3161 section 2.4.2), unique per token: hex. */
  serial: string;
  accuracySeconds: number;
}

/** A serial for one token: 16 random bytes (128 bits), positive, never starting with a zero byte. */
export function newTokenSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

/**
 * The development TSA's answer to a DER TimeStampReq (RFC 3161 section 2.4.2): a token over the query's imprint, or a
 * rejection naming what is wrong with the query. Never throws for a bad query.
 */
export async function answerTimestampQuery(
  queryDer: Uint8Array,
  signer: TsaSigner,
  options: TsaAnswerOptions,
): Promise<Uint8Array> {
  let request: pkijs.TimeStampReq;
  try {
    request = new pkijs.TimeStampReq({ schema: parseDer(queryDer, 'a TimeStampReq') });
  } catch {
    return rejection('badDataFormat', 'The request is not a DER TimeStampReq.');
  }
  if (request.version !== 1) return rejection('badRequest', `Version ${request.version} is not supported.`);
  const imprint = request.messageImprint;
  const digest = DIGESTS[imprint.hashAlgorithm.algorithmId];
  if (!digest) return rejection('badAlg', 'The message imprint must be SHA-256, SHA-384 or SHA-512.');
  if (imprint.hashedMessage.valueBlock.valueHexView.byteLength !== digest.length)
    return rejection('badDataFormat', `A ${digest.name} imprint has ${digest.length} bytes.`);
  if (request.reqPolicy && oidText(request.reqPolicy) !== options.policy)
    return rejection('unacceptedPolicy', `The policy ${oidText(request.reqPolicy)} is not supported.`);
  if (request.extensions?.length) return rejection('unacceptedExtension', 'Request extensions are not supported.');

  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: options.policy,
    // The query's own MessageImprint, as it came (RFC 3161: the same value).
    messageImprint: imprint,
    serialNumber: new asn1js.Integer({ valueHex: Buffer.from(options.serial, 'hex') }),
    genTime: options.now,
    accuracy: new pkijs.Accuracy({ seconds: options.accuracySeconds }),
    ...(request.nonce ? { nonce: request.nonce } : {}),
    tsa: new pkijs.GeneralName({ type: 4, value: signer.certificate.subject }),
  });
  const content = new Uint8Array(tstInfo.toSchema().toBER(false));
  const cert = signer.certificate;
  const signed = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: Oid.tstInfo,
      eContent: new asn1js.OctetString({ valueHex: content }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: Oid.contentType,
              values: [new asn1js.ObjectIdentifier({ value: Oid.tstInfo })],
            }),
            new pkijs.Attribute({
              type: Oid.messageDigest,
              values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(content).digest() })],
            }),
            signingCertificateV2(cert, signer.certificateDer),
          ],
        }),
      }),
    ],
    ...(request.certReq ? { certificates: [cert] } : {}),
  });
  await signed.sign(signer.key, 0, 'SHA-256', undefined, tspCrypto);
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: new pkijs.ContentInfo({ contentType: Oid.signedData, content: signed.toSchema(true) }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

/** ESS signing-certificate-v2 (RFC 5035): one ESSCertIDv2, SHA-256 (the default, so not written), issuer and serial. */
function signingCertificateV2(cert: pkijs.Certificate, certDer: Uint8Array): pkijs.Attribute {
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }),
    serialNumber: cert.serialNumber,
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: createHash('sha256').update(certDer).digest() }),
      issuerSerial.toSchema(),
    ],
  });
  return new pkijs.Attribute({
    type: Oid.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/** A TimeStampResp with status rejection and the failure named (PKIFailureInfo bit, RFC 3161 section 2.4.2). */
export function rejection(failure: FailureName, text: string): Uint8Array {
  const bit = Number(Object.entries(FAILURE_NAMES).find(([, name]) => name === failure)![0]);
  const bytes = new Uint8Array((bit >> 3) + 1);
  bytes[bit >> 3] = 0x80 >> (bit & 7);
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({
      status: pkijs.PKIStatus.rejection,
      statusStrings: [new asn1js.Utf8String({ value: text })],
      failInfo: new asn1js.BitString({ valueHex: bytes, unusedBits: 7 - (bit & 7) }),
    }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}
