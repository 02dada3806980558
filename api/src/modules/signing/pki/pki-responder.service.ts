import 'reflect-metadata';
import { Injectable, Logger } from '@nestjs/common';
import * as x509 from '@peculiar/x509';
import { AppError } from '../../../common/app-error';
import {
  certIdFor,
  MalformedOcspRequest,
  nameHash,
  ocspErrorResponse,
  parseOcspRequest,
  signCrl,
  signOcspResponse,
  type CertStatus,
  type OcspQuery,
} from './ocsp';
import type { PkiAuthorityEntity } from './pki-authority.entity';
import type { PkiCertificateEntity } from './pki-certificate.entity';
import { PkiRegistry, type CertificateInput } from './pki-registry.service';

/** How long an OCSP answer and a CRL may be relied on (their nextUpdate). */
export const OCSP_VALIDITY_MS = 24 * 3_600_000;
export const CRL_VALIDITY_MS = 24 * 3_600_000;

const statusOf = (row: PkiCertificateEntity | null): CertStatus =>
  !row
    ? { status: 'unknown' }
    : row.revokedAt
      ? { status: 'revoked', revokedAt: row.revokedAt, reason: row.revocationReason }
      : { status: 'good' };

/**
 * The development PKI's answers (RFC 6960 OCSP, RFC 5280 CRLs), from the registry: OCSP signed by the CA's delegated
 * responder, CRLs by the CA itself; for /pki/ocsp, /pki/crl/{ca}.crl and /pki/ca/{ca}.crt, and in process for the
 * document's validation data.
 */
@Injectable()
export class PkiResponder {
  private readonly log = new Logger('PkiResponder');

  constructor(private readonly registry: PkiRegistry) {}

  /**
   * An OCSP request's answer, whatever the request (RFC 6960 2.3): `malformedRequest` for what is not a readable
   * request, `unauthorized` when it asks about a CA this installation does not hold, `internalError` (logged) when
   * something here failed; otherwise good / revoked / unknown for each certificate, the nonce echoed.
   */
  async answer(bytes: Uint8Array | null, now: Date): Promise<Uint8Array> {
    if (!bytes?.byteLength) return ocspErrorResponse('malformedRequest');
    try {
      const request = parseOcspRequest(bytes);
      const authority = await this.authorityFor(request.queries);
      if (!authority) return ocspErrorResponse('unauthorized');
      const answers = await Promise.all(
        request.queries.map(async (q) => ({
          certId: q.certId,
          status: statusOf(await this.registry.entry(authority.id, q.serial)),
        })),
      );
      return await this.sign(authority, answers, request.nonce, now);
    } catch (err) {
      if (err instanceof MalformedOcspRequest) return ocspErrorResponse('malformedRequest');
      this.log.error(`OCSP answer failed: ${(err as Error).message}`);
      return ocspErrorResponse('internalError');
    }
  }

  /** The one CA every query of the request names (by key and name hash), when it is ours. */
  private async authorityFor(queries: OcspQuery[]): Promise<PkiAuthorityEntity | null> {
    let found: PkiAuthorityEntity | null = null;
    for (const q of queries) {
      if (q.hashAlgorithm !== 'SHA-1' && q.hashAlgorithm !== 'SHA-256') return null;
      const authority = await this.registry.authorityByKeyHash(q.hashAlgorithm, q.issuerKeyHash);
      if (!authority || nameHash(authority.certPem, q.hashAlgorithm) !== q.issuerNameHash) return null;
      if (found && found.id !== authority.id) return null;
      found = authority;
    }
    return found;
  }

  private async sign(
    authority: PkiAuthorityEntity,
    answers: { certId: OcspQuery['certId']; status: CertStatus }[],
    nonce: Parameters<typeof signOcspResponse>[0]['nonce'],
    now: Date,
  ): Promise<Uint8Array> {
    return signOcspResponse({
      signer: await this.registry.responder(authority, now),
      answers,
      nonce,
      now,
      validityMs: OCSP_VALIDITY_MS,
    });
  }

  /**
   * In process, for the validation data of a document: the OCSP response about `cert` from its issuer, a CA of ours;
   * null when the registry does not know the certificate (issued before the registry existed: its CA's CRL answers).
   */
  async ocspFor(authority: PkiAuthorityEntity, cert: CertificateInput, now: Date): Promise<Uint8Array | null> {
    const parsed = new x509.X509Certificate(typeof cert === 'string' ? cert : Buffer.from(cert));
    const row = await this.registry.entry(authority.id, parsed.serialNumber);
    if (!row) return null;
    const certId = await certIdFor(new Uint8Array(parsed.rawData), authority.certPem);
    return this.sign(authority, [{ certId, status: statusOf(row) }], null, now);
  }

  /** The CA's current CRL (DER): every certificate it revoked. Unknown CA: 404. */
  async crl(caId: string, now: Date): Promise<Uint8Array> {
    const authority = await this.known(caId);
    const revoked = await this.registry.revokedBy(authority.id);
    return signCrl({
      caCertPem: authority.certPem,
      key: await this.registry.signingKey(authority),
      entries: revoked.map((r) => ({ serial: r.serial, revokedAt: r.revokedAt!, reason: r.revocationReason })),
      // Wall-clock milliseconds: increasing across nodes and restarts without a shared counter (RFC 5280 5.2.3).
      number: BigInt(Date.now()),
      now,
      validityMs: CRL_VALIDITY_MS,
    });
  }

  /** The CA's certificate (DER), the AIA caIssuers of what it issued. Unknown CA: 404. */
  async caCertificate(caId: string): Promise<Uint8Array> {
    return new Uint8Array(new x509.X509Certificate((await this.known(caId)).certPem).rawData);
  }

  private async known(caId: string): Promise<PkiAuthorityEntity> {
    const authority = await this.registry.authorityById(caId);
    if (!authority) throw new AppError('NOT_FOUND', `No certification authority "${caId}" is known here.`);
    return authority;
  }
}
