import 'reflect-metadata';
import { Injectable, Logger } from '@nestjs/common';
import type { RevocationProvider } from '@libpdf/core';
import * as x509 from '@peculiar/x509';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '../../../common/clock';
import {
  normaliseSerial,
  ocspRequestFor,
  readCrl,
  readOcspResponse,
  RevocationDataError,
  type CertStatus,
} from '../pki/ocsp';
import { parsedCertificate } from '../pki/parsed-certificates';
import { PkiRegistry } from '../pki/pki-registry.service';
import { PkiResponder } from '../pki/pki-responder.service';
import { CertificateRevokedError, Revocation, RevocationRecord } from './revocation';

/** Each OCSP responder or CRL server gets this long to answer (the issue: 5 s). */
export const REVOCATION_FETCH_TIMEOUT_MS = 5_000;
const MAX_OCSP_BYTES = 1024 * 1024;
const MAX_CRL_BYTES = 32 * 1024 * 1024;
/**
 * When no status could be had for another CA's certificate, the product does not ask again for this long before its
 * next signatures: a seal job signing for six parties with an imported certificate whose responder is down waits for
 * the timeouts once, not six times. An answer (good or revoked) is asked for before every signature.
 */
const UNAVAILABLE_REUSE_MS = 60_000;

type Fetched = { der: Uint8Array; status: CertStatus } | { failure: string };

const parse = (der: Uint8Array) => parsedCertificate(der);
const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const isSelfIssued = (cert: x509.X509Certificate) => cert.subject === cert.issuer;
const web = (url: string) => /^https?:\/\//i.test(url);
const reasonOf = (err: unknown): string => {
  if (err instanceof RevocationDataError) return err.message;
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return `no answer within ${REVOCATION_FETCH_TIMEOUT_MS / 1000} s`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
};

function ocspUrls(cert: x509.X509Certificate): string[] {
  const aia = cert.getExtension(x509.AuthorityInfoAccessExtension);
  return (aia?.ocsp ?? [])
    .filter((n) => n.type === 'url')
    .map((n) => n.value)
    .filter(web);
}

function crlUrls(cert: x509.X509Certificate): string[] {
  const dps = cert.getExtension(x509.CRLDistributionPointsExtension)?.distributionPoints ?? [];
  return dps
    .flatMap((dp) => dp.distributionPoint?.fullName ?? [])
    .map((name) => name.uniformResourceIdentifier)
    .filter((url): url is string => typeof url === 'string' && web(url));
}

async function fetchBytes(url: string, init: RequestInit, limit: number): Promise<Uint8Array> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REVOCATION_FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new RevocationDataError(`HTTP ${res.status}`);
  if (Number(res.headers.get('content-length') ?? 0) > limit) throw new RevocationDataError('the answer is too large');
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.byteLength > limit) throw new RevocationDataError('the answer is too large');
  return body;
}

/**
 * Revocation data (issue 19) for the development PKI and for every other CA. Certificates the development PKI issued
 * are answered in process from its registry (the same signed OCSP response /pki/ocsp gives, with no HTTP call to
 * ourselves); for the others the OCSP responder of the certificate's AIA is asked (POST, 5 s, the answer checked: the
 * issuer's or its delegated responder's signature, the CertID, the nonce, the dates), and else its CRL distribution
 * points (signature and dates checked). Other CAs' answers are dated by their clocks, so they are checked against the
 * wall clock (the Clock's time in production); our own evidence is dated by the Clock, like the signatures it is for.
 */
@Injectable()
export class PkiRevocation extends Revocation {
  private readonly log = new Logger('Revocation');
  private readonly unavailable = new Map<string, number>();

  constructor(
    private readonly registry: PkiRegistry,
    private readonly responder: PkiResponder,
    private readonly clock: Clock,
  ) {
    super();
  }

  /**
   * For @libpdf/core's validation data. Never throws: what cannot be had is a gap in `record` (a failed OCSP look-up
   * is recorded at once, and withdrawn when the CRL answers instead); a trust anchor needs nothing.
   */
  provider(record: RevocationRecord): RevocationProvider {
    const issuers = new Map<string, Uint8Array>();
    const gap = (cert: x509.X509Certificate, reason: string) => {
      const serial = normaliseSerial(cert.serialNumber);
      const found = record.gaps.find((g) => g.serial === serial && g.subject === cert.subject);
      if (found) found.reason = `${found.reason}; ${reason}`;
      else record.add({ subject: cert.subject, serial, reason });
    };
    const settled = (cert: x509.X509Certificate) => {
      const serial = normaliseSerial(cert.serialNumber);
      const at = record.gaps.findIndex((g) => g.serial === serial && g.subject === cert.subject);
      if (at >= 0) record.gaps.splice(at, 1);
    };
    // One answer per certificate for the whole DSS: the CAs and the TSA recur in every signature's chain.
    const ocspAnswers = new Map<string, Promise<Uint8Array | null>>();
    const crlAnswers = new Map<string, Promise<Uint8Array | null>>();
    const once = (
      answers: Map<string, Promise<Uint8Array | null>>,
      key: string,
      answer: () => Promise<Uint8Array | null>,
    ) => {
      let found = answers.get(key);
      if (!found) answers.set(key, (found = answer()));
      return found;
    };
    const provider: RevocationProvider = {
      getOCSP: async (certDer, issuerDer) => {
        let cert: x509.X509Certificate | null = null;
        try {
          cert = parse(certDer);
          issuers.set(sha256(certDer), issuerDer);
          const ours = await this.registry.authorityOfIssuer(issuerDer);
          if (ours) {
            const der = await this.responder.ocspFor(ours, certDer, this.clock.now());
            if (der) return der;
            gap(cert, "OCSP: not in the development PKI's registry (issued before it kept one)");
            return null;
          }
          const got = await this.fetchOcsp(cert, certDer, issuerDer);
          if ('der' in got) return got.der;
          gap(cert, `OCSP: ${got.failure}`);
        } catch (err) {
          if (cert) gap(cert, `OCSP: ${reasonOf(err)}`);
          else this.log.warn(`unreadable certificate in a chain: ${reasonOf(err)}`);
        }
        return null;
      },
      getCRL: async (certDer) => {
        let cert: x509.X509Certificate | null = null;
        try {
          cert = parse(certDer);
          if (isSelfIssued(cert)) return null;
          const issuerDer = issuers.get(sha256(certDer)) ?? (await this.ourIssuerDer(certDer));
          if (!issuerDer) {
            gap(cert, "CRL: the issuer's certificate is not in the chain");
            return null;
          }
          const ours = await this.registry.authorityOfIssuer(issuerDer);
          if (ours) {
            const der = await this.responder.crl(ours.id, this.clock.now());
            settled(cert);
            return der;
          }
          const got = await this.fetchCrl(cert, issuerDer);
          if ('der' in got) {
            settled(cert);
            return got.der;
          }
          gap(cert, `CRL: ${got.failure}`);
        } catch (err) {
          if (cert) gap(cert, `CRL: ${reasonOf(err)}`);
          else this.log.warn(`unreadable certificate in a chain: ${reasonOf(err)}`);
        }
        return null;
      },
    };
    return {
      getOCSP: (certDer, issuerDer) =>
        once(ocspAnswers, `${sha256(certDer)}:${sha256(issuerDer)}`, () => provider.getOCSP!(certDer, issuerDer)),
      getCRL: (certDer) => once(crlAnswers, sha256(certDer), () => provider.getCRL!(certDer)),
    };
  }

  /**
   * Before a signature: throws CertificateRevokedError when a certificate of the chain (leaf first) is revoked. The
   * development PKI's from its registry; others' from their OCSP responder or CRL. A status that cannot be had does
   * not block (the validation data records the gap); trust anchors are not checked.
   */
  async assertNotRevoked(chain: Uint8Array[]): Promise<void> {
    for (let i = 0; i < chain.length; i++) {
      const cert = parse(chain[i]);
      if (isSelfIssued(cert)) continue;
      const issuerDer = chain[i + 1] ?? (await this.ourIssuerDer(chain[i]));
      if (!issuerDer) continue;
      const status = await this.statusOf(cert, chain[i], issuerDer);
      if (status?.status === 'revoked') {
        throw new CertificateRevokedError(cert.subject, normaliseSerial(cert.serialNumber), status.revokedAt);
      }
    }
  }

  private async statusOf(cert: x509.X509Certificate, certDer: Uint8Array, issuerDer: Uint8Array) {
    const ours = await this.registry.authorityOfIssuer(issuerDer);
    if (ours) {
      const row = await this.registry.entry(ours.id, cert.serialNumber);
      return row?.revokedAt
        ? ({ status: 'revoked', revokedAt: row.revokedAt, reason: row.revocationReason } as const)
        : null;
    }
    const key = sha256(certDer);
    const now = this.clock.now().getTime();
    if ((this.unavailable.get(key) ?? 0) > now) return null;
    const ocsp = await this.fetchOcsp(cert, certDer, issuerDer);
    if ('der' in ocsp) return ocsp.status;
    const crl = await this.fetchCrl(cert, issuerDer);
    if ('der' in crl) return crl.status;
    this.log.warn(`no revocation status for "${cert.subject}": ${ocsp.failure}; ${crl.failure}`);
    if (this.unavailable.size > 1000) this.unavailable.clear();
    this.unavailable.set(key, now + UNAVAILABLE_REUSE_MS);
    return null;
  }

  private async ourIssuerDer(certDer: Uint8Array): Promise<Uint8Array | null> {
    const authority = await this.registry.ourIssuerOf(certDer);
    return authority ? new Uint8Array(new x509.X509Certificate(authority.certPem).rawData) : null;
  }

  /** The OCSP responders of the certificate's AIA, in order, until one gives a checked good or revoked answer. */
  private async fetchOcsp(cert: x509.X509Certificate, certDer: Uint8Array, issuerDer: Uint8Array): Promise<Fetched> {
    const urls = ocspUrls(cert);
    if (!urls.length) return { failure: 'the certificate names no OCSP responder' };
    const failures: string[] = [];
    for (const url of urls) {
      try {
        const nonce = randomBytes(32);
        const body = await ocspRequestFor(certDer, issuerDer, nonce);
        const der = await fetchBytes(
          url,
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/ocsp-request', Accept: 'application/ocsp-response' },
            body,
          },
          MAX_OCSP_BYTES,
        );
        const answer = await readOcspResponse(der, { certDer, issuerDer, now: new Date(), nonce });
        if (answer.status.status === 'unknown')
          throw new RevocationDataError('the responder does not know the certificate');
        return { der, status: answer.status };
      } catch (err) {
        failures.push(`${url}: ${reasonOf(err)}`);
      }
    }
    return { failure: failures.join('; ') };
  }

  /** The CRL distribution points of the certificate, in order, until one gives a checked CRL. */
  private async fetchCrl(cert: x509.X509Certificate, issuerDer: Uint8Array): Promise<Fetched> {
    const urls = crlUrls(cert);
    if (!urls.length) return { failure: 'the certificate names no CRL distribution point' };
    const failures: string[] = [];
    for (const url of urls) {
      try {
        const der = await fetchBytes(
          url,
          { headers: { Accept: 'application/pkix-crl, application/x-pkcs7-crl' } },
          MAX_CRL_BYTES,
        );
        const answer = await readCrl(der, { issuerDer, serial: cert.serialNumber, now: new Date() });
        return { der, status: answer.status };
      } catch (err) {
        failures.push(`${url}: ${reasonOf(err)}`);
      }
    }
    return { failure: failures.join('; ') };
  }
}
