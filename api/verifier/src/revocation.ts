import type { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  bytesOf,
  certificatesOf,
  DIGESTS,
  integerHex,
  OID,
  parseAsn1,
  pkijsView,
  publicKeyBits,
  serialHex,
  sha,
  subjectNameDer,
  verifyWith,
} from './asn1';
import { commonName } from './chain';

/** What the document's revocation data (the DSS's OCSP responses and CRLs) says of one certificate. */
export interface RevocationStatus {
  /** The certificate's common name, serial number (hex) and role in the chain. */
  subject: string;
  serialNumber: string;
  role: 'signer' | 'CA' | 'TSA' | 'TSA CA';
  /** good / revoked / unknown as a response says; 'no data' when the file carries none for it. */
  status: 'good' | 'revoked' | 'unknown' | 'no data';
  source: 'OCSP' | 'CRL' | null;
  /** OCSP producedAt; the response's or CRL's thisUpdate and nextUpdate (ISO 8601). */
  producedAt: string | null;
  thisUpdate: string | null;
  nextUpdate: string | null;
  /** When a revoked certificate was revoked (ISO 8601). */
  revokedAt: string | null;
  /** The response's signature holds (the issuer's key, or a responder the issuer certified for OCSP signing). */
  verified: boolean;
}

interface OcspEntry {
  response: pkijs.BasicOCSPResponse;
  certificates: X509Certificate[];
}

/** The OCSP responses and CRLs of a document, parsed once. */
export interface RevocationData {
  ocsp: OcspEntry[];
  crls: pkijs.CertificateRevocationList[];
  /** Responses that could not be read (counted, not used). */
  unreadable: number;
}

const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';

export function parseRevocationData(ocsps: Uint8Array[], crls: Uint8Array[]): RevocationData {
  const data: RevocationData = { ocsp: [], crls: [], unreadable: 0 };
  for (const der of ocsps) {
    try {
      const outer = new pkijs.OCSPResponse({ schema: parseAsn1(der) });
      const bytes = outer.responseBytes;
      if (outer.responseStatus.valueBlock.valueDec !== 0 || !bytes || bytes.responseType !== OID.basicOcsp)
        throw new Error('not a successful basic OCSP response');
      const response = new pkijs.BasicOCSPResponse({
        schema: parseAsn1(bytes.response.valueBlock.valueHexView),
      });
      data.ocsp.push({ response, certificates: certificatesOf(response.certs) });
    } catch {
      // A BasicOCSPResponse stored without its OCSPResponse wrapper (some producers do) is read as such.
      try {
        const response = new pkijs.BasicOCSPResponse({ schema: parseAsn1(der) });
        data.ocsp.push({ response, certificates: certificatesOf(response.certs) });
      } catch {
        data.unreadable++;
      }
    }
  }
  for (const der of crls) {
    try {
      data.crls.push(new pkijs.CertificateRevocationList({ schema: parseAsn1(der) }));
    } catch {
      data.unreadable++;
    }
  }
  return data;
}

const iso = (d: Date | undefined | null) => (d ? d.toISOString() : null);

/** The response is signed by the issuer, or by a responder certificate the issuer made for OCSP signing. */
function ocspVerified(entry: OcspEntry, issuer: X509Certificate, pool: X509Certificate[]): boolean {
  const tbs = entry.response.tbsResponseData.tbsView;
  const signature = entry.response.signature.valueBlock.valueHexView;
  const candidates = [issuer, ...entry.certificates, ...pool];
  return candidates.some((responder) => {
    const delegated =
      responder.fingerprint256 !== issuer.fingerprint256 &&
      responder.checkIssued(issuer) &&
      responder.verify(issuer.publicKey) &&
      (responder.keyUsage ?? []).includes(OCSP_SIGNING);
    if (responder.fingerprint256 !== issuer.fingerprint256 && !delegated) return false;
    return verifyWith(responder.publicKey, entry.response.signatureAlgorithm, 'sha256', tbs, signature);
  });
}

/** The response about `cert` in an OCSP entry: its CertID names the serial, the issuer's name and key. */
function singleResponseFor(
  entry: OcspEntry,
  cert: X509Certificate,
  issuer: X509Certificate,
): pkijs.SingleResponse | null {
  const serial = serialHex(cert);
  for (const single of entry.response.tbsResponseData.responses) {
    const id = single.certID;
    if (integerHex(id.serialNumber) !== serial) continue;
    const digest = DIGESTS[id.hashAlgorithm.algorithmId];
    if (!digest) continue;
    const [name, key] = [subjectNameDer(issuer), publicKeyBits(issuer)];
    if (!name || !key) return null;
    const nameHash = bytesOf(id.issuerNameHash.valueBlock.valueHexView);
    const keyHash = bytesOf(id.issuerKeyHash.valueBlock.valueHexView);
    if (nameHash.equals(sha(digest, name)) && keyHash.equals(sha(digest, key))) return single;
  }
  return null;
}

/** OCSP certStatus: [0] good, [1] revoked (RevokedInfo: revocationTime, …), [2] unknown. */
function certStatus(single: pkijs.SingleResponse): { status: 'good' | 'revoked' | 'unknown'; revokedAt: Date | null } {
  const status = single.certStatus as asn1js.BaseBlock;
  switch (status.idBlock.tagNumber) {
    case 0:
      return { status: 'good', revokedAt: null };
    case 1: {
      const time = (status as asn1js.Constructed).valueBlock.value[0] as asn1js.GeneralizedTime | undefined;
      return { status: 'revoked', revokedAt: time instanceof asn1js.GeneralizedTime ? time.toDate() : null };
    }
    default:
      return { status: 'unknown', revokedAt: null };
  }
}

/**
 * What the document's revocation data says of `cert` (issued by `issuer`): an OCSP response about it, else a CRL of
 * its issuer. A verified answer wins over an unverified one; among verified answers a revocation wins, then the
 * freshest.
 */
export function revocationStatus(
  cert: X509Certificate,
  issuer: X509Certificate | null,
  role: RevocationStatus['role'],
  data: RevocationData,
  pool: X509Certificate[],
): RevocationStatus {
  const base: RevocationStatus = {
    subject: commonName(cert),
    serialNumber: cert.serialNumber,
    role,
    status: 'no data',
    source: null,
    producedAt: null,
    thisUpdate: null,
    nextUpdate: null,
    revokedAt: null,
    verified: false,
  };
  if (!issuer) return base;
  const found: RevocationStatus[] = [];
  for (const entry of data.ocsp) {
    const single = singleResponseFor(entry, cert, issuer);
    if (!single) continue;
    const { status, revokedAt } = certStatus(single);
    found.push({
      ...base,
      status,
      source: 'OCSP',
      producedAt: iso(entry.response.tbsResponseData.producedAt),
      thisUpdate: iso(single.thisUpdate),
      nextUpdate: iso(single.nextUpdate),
      revokedAt: iso(revokedAt),
      verified: ocspVerified(entry, issuer, pool),
    });
  }
  const issuerName = pkijsView(cert)?.issuer;
  for (const crl of data.crls) {
    if (!issuerName || !crl.issuer.isEqual(issuerName)) continue;
    const serial = serialHex(cert);
    const entry = crl.revokedCertificates?.find((r) => integerHex(r.userCertificate) === serial);
    found.push({
      ...base,
      status: entry ? 'revoked' : 'good',
      source: 'CRL',
      thisUpdate: iso(crl.thisUpdate.value),
      nextUpdate: iso(crl.nextUpdate?.value),
      revokedAt: iso(entry?.revocationDate.value),
      verified: verifyWith(
        issuer.publicKey,
        crl.signatureAlgorithm,
        'sha256',
        crl.tbsView,
        crl.signatureValue.valueBlock.valueHexView,
      ),
    });
  }
  if (!found.length) return base;
  const rank = (s: RevocationStatus) =>
    (s.verified ? 4 : 0) + (s.status === 'revoked' ? 2 : s.status === 'good' ? 1 : 0);
  return found.sort(
    (a, b) => rank(b) - rank(a) || Date.parse(b.thisUpdate ?? '') - Date.parse(a.thisUpdate ?? '') || 0,
  )[0];
}
