import { createHash, X509Certificate } from 'node:crypto';
import type { RevocationProvider } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificatesOf, signatureTimestampOf } from '../pdf/cms';
import { ocspCertificatesOf } from '../pdf/cms-der';

/*
 * The validation data of a document's signatures (issue 19's B-LT, written by the engine as the DSS, issue 23): for
 * each signature (and each document timestamp), its signer's chain and its timestamp authority's, an OCSP response
 * (else a CRL) for every certificate that has an issuer, and the OCSP responders' certificates; as @libpdf/core's
 * addValidationData gathered them, minus its re-reading of the document. Chains are completed from the CMS's own
 * certificates, then from the certificates' AIA (caIssuers, 5 s).
 */

const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';
const FETCH_TIMEOUT_MS = 5_000;
const MAX_CERTIFICATE_BYTES = 1024 * 1024;
const MAX_CHAIN = 10;

/** What one signature needs to be validated from the file alone. */
export interface SignatureEvidence {
  /** The VRI key: SHA-1 (upper-case hex) of the signature's /Contents as stored (zero padding included). */
  vriKey: string;
  certificates: Uint8Array[];
  ocsps: Uint8Array[];
  crls: Uint8Array[];
  /** The signature-timestamp token the CMS carries (a VRI entry of its own). */
  timestamps: Uint8Array[];
}

export const sha1Hex = (bytes: Uint8Array): string => createHash('sha1').update(bytes).digest('hex').toUpperCase();

/** The DER element at the start of `bytes` (a /Contents padded with zeros after its CMS). */
export function withoutPadding(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 2) return bytes;
  const first = bytes[1];
  if (first < 0x80) return bytes.subarray(0, Math.min(2 + first, bytes.length));
  const count = first & 0x7f;
  if (count === 0 || count > 4 || 2 + count > bytes.length) return bytes;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[2 + i];
  return bytes.subarray(0, Math.min(2 + count + length, bytes.length));
}

function signedDataOf(der: Uint8Array): pkijs.SignedData {
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1) throw new Error('The signature is not a readable CMS.');
  const info = new pkijs.ContentInfo({ schema: parsed.result });
  if (info.contentType !== OID_SIGNED_DATA) throw new Error('The signature is not CMS SignedData.');
  return new pkijs.SignedData({ schema: info.content });
}

interface Certificate {
  der: Uint8Array;
  x509: X509Certificate;
}

const certificateOf = (der: Uint8Array): Certificate => ({ der, x509: new X509Certificate(der) });
const selfIssued = (cert: Certificate) => cert.x509.subject === cert.x509.issuer && cert.x509.checkIssued(cert.x509);

/**
 * The CMS's certificates, its signer's first (by issuer and serial, else the first), and its timestamp token: read from
 * the DER as it is (cms.ts and cms-der.ts; issue 23: parsing every CMS and re-encoding its certificates through pkijs
 * was the largest part of gathering a B-LT seal's validation data), else, for a CMS those do not read (BER, no signed
 * attributes), through pkijs.
 */
function readCms(der: Uint8Array): { signer: Certificate | null; others: Certificate[]; token: Uint8Array | null } {
  let read: ReturnType<typeof certificatesOf>;
  try {
    read = certificatesOf(der);
  } catch {
    return readCmsThroughPkijs(der);
  }
  return {
    signer: certificateOf(read.signer),
    others: read.others.map(certificateOf),
    token: signatureTimestampOf(der),
  };
}

function readCmsThroughPkijs(der: Uint8Array): {
  signer: Certificate | null;
  others: Certificate[];
  token: Uint8Array | null;
} {
  const signed = signedDataOf(der);
  const all = (signed.certificates ?? [])
    .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    .map((c) => certificateOf(new Uint8Array(c.toSchema().toBER(false))));
  const info = signed.signerInfos[0];
  let signer: Certificate | null = all[0] ?? null;
  if (info?.sid instanceof pkijs.IssuerAndSerialNumber) {
    const serial = Buffer.from(info.sid.serialNumber.valueBlock.valueHexView)
      .toString('hex')
      .replace(/^(00)+/, '');
    signer =
      all.find((c) => c.x509.serialNumber.toLowerCase().replace(/^(00)+/, '') === serial.toLowerCase()) ?? signer;
  }
  const attribute = info?.unsignedAttrs?.attributes.find((a) => a.type === OID_SIGNATURE_TIMESTAMP);
  const token = attribute?.values[0] ? new Uint8Array(attribute.values[0].toBER(false)) : null;
  return { signer, others: all.filter((c) => c !== signer), token };
}

/** The certificates an OCSP response carries (its delegated responder's), from its DER, else through pkijs. */
function responderCertificates(ocsp: Uint8Array): Uint8Array[] {
  try {
    return ocspCertificatesOf(ocsp);
  } catch {
    // not DER: below
  }
  try {
    const parsed = asn1js.fromBER(ocsp);
    if (parsed.offset === -1) return [];
    const response = new pkijs.OCSPResponse({ schema: parsed.result });
    if (!response.responseBytes) return [];
    const inner = asn1js.fromBER(response.responseBytes.response.valueBlock.valueHexView);
    if (inner.offset === -1) return [];
    const basic = new pkijs.BasicOCSPResponse({ schema: inner.result });
    return (basic.certs ?? []).map((c) => new Uint8Array(c.toSchema().toBER(false)));
  } catch {
    return [];
  }
}

/** Gathers validation data signature by signature, each certificate's revocation data asked for once. */
export class ValidationDataGatherer {
  private readonly revocation = new Map<string, Promise<{ ocsp: Uint8Array | null; crl: Uint8Array | null }>>();
  private readonly fetched = new Map<string, Promise<Certificate | null>>();

  constructor(private readonly provider: RevocationProvider) {}

  /** The evidence of one signature, from its /Contents as stored. */
  async gather(contents: Uint8Array): Promise<SignatureEvidence> {
    const { signer, others, token } = readCms(withoutPadding(contents));
    const evidence: SignatureEvidence = {
      vriKey: sha1Hex(contents),
      certificates: [],
      ocsps: [],
      crls: [],
      timestamps: token ? [token] : [],
    };
    const chains: Certificate[][] = [];
    if (signer) chains.push(await this.chain(signer, others));
    if (token) {
      const tsa = readCms(token);
      if (tsa.signer) chains.push(await this.chain(tsa.signer, tsa.others));
    }
    const certificates: Uint8Array[] = [];
    for (const chain of chains) {
      certificates.push(...chain.map((c) => c.der));
      for (let i = 0; i < chain.length; i++) {
        const { ocsp, crl } = await this.revocationOf(chain[i], chain[i + 1] ?? null);
        if (ocsp) {
          evidence.ocsps.push(ocsp);
          certificates.push(...responderCertificates(ocsp));
        } else if (crl) evidence.crls.push(crl);
      }
    }
    const seen = new Set<string>();
    evidence.certificates = certificates.filter((der) => {
      const key = sha1Hex(der);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return evidence;
  }

  /** The signer's chain up to a self-issued certificate: from the CMS's certificates, else the issuers' AIA. */
  private async chain(signer: Certificate, others: Certificate[]): Promise<Certificate[]> {
    const chain = [signer];
    for (let current = signer; chain.length < MAX_CHAIN && !selfIssued(current);) {
      const issuer =
        others.find((c) => !chain.includes(c) && current.x509.checkIssued(c.x509)) ?? (await this.fromAia(current));
      if (!issuer || chain.some((c) => Buffer.from(c.der).equals(Buffer.from(issuer.der)))) break;
      chain.push(issuer);
      current = issuer;
    }
    return chain;
  }

  /** The issuer named by the certificate's AIA caIssuers URL (DER or PEM), when it issued it; null otherwise. */
  private fromAia(cert: Certificate): Promise<Certificate | null> {
    const url = /CA Issuers - URI:(https?:\/\/\S+)/i.exec(cert.x509.infoAccess ?? '')?.[1];
    if (!url) return Promise.resolve(null);
    let found = this.fetched.get(url);
    if (!found) {
      found = (async () => {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
          if (!res.ok) return null;
          const body = Buffer.from(await res.arrayBuffer());
          if (body.length > MAX_CERTIFICATE_BYTES) return null;
          return certificateOf(new Uint8Array(new X509Certificate(body).raw));
        } catch {
          return null;
        }
      })();
      this.fetched.set(url, found);
    }
    return found.then((issuer) => (issuer && cert.x509.checkIssued(issuer.x509) ? issuer : null));
  }

  /** An OCSP response for the certificate (it has an issuer), else its CRL; asked for once per certificate. */
  private revocationOf(cert: Certificate, issuer: Certificate | null) {
    const key = sha1Hex(cert.der);
    let answer = this.revocation.get(key);
    if (!answer) {
      // A provider that throws counts as one without an answer (Revocation records the gap).
      const ask = (question: (() => Promise<Uint8Array | null>) | null) =>
        question ? question().catch(() => null) : Promise.resolve(null);
      const provider = this.provider;
      answer = (async () => {
        const ocsp = await ask(issuer && provider.getOCSP ? () => provider.getOCSP!(cert.der, issuer.der) : null);
        if (ocsp) return { ocsp, crl: null };
        return { ocsp: null, crl: await ask(provider.getCRL ? () => provider.getCRL!(cert.der) : null) };
      })();
      this.revocation.set(key, answer);
    }
    return answer;
  }
}
