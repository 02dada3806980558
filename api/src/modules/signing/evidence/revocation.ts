import type { RevocationProvider } from '@libpdf/core';

/**
 * Revocation data for long-term validation (issue 19, B-LT): an OCSP response or a CRL for each non-root certificate
 * of every chain the document relies on. The development PKI answers for its own certificates (its OCSP responder and
 * CRLs are served at /pki/ocsp and /pki/crl/{ca}.crl, and answered in process here); other CAs' data is fetched from
 * their certificates' AIA and CRL distribution points. What cannot be had is recorded, never invented.
 */

/** A certificate whose revocation data could not be had, and why (for the audit trail and the certificate). */
export interface RevocationGap {
  subject: string;
  serial: string;
  reason: string;
}

/** Collects the gaps met while building one document's validation data. */
export class RevocationRecord {
  readonly gaps: RevocationGap[] = [];
  add(gap: RevocationGap): void {
    if (!this.gaps.some((g) => g.serial === gap.serial && g.subject === gap.subject)) this.gaps.push(gap);
  }
}

/** A certificate the product would sign with, or rely on, is revoked: the signature is not made. */
export class CertificateRevokedError extends Error {
  constructor(
    readonly subject: string,
    readonly serial: string,
    readonly revokedAt: Date | null,
  ) {
    super(`The certificate "${subject}" (serial ${serial}) has been revoked; nothing was signed with it.`);
    this.name = 'CertificateRevokedError';
  }
}

export abstract class Revocation {
  /**
   * @libpdf/core's provider for the DSS (addValidationData): OCSP for (certificate, issuer), else the issuer's CRL;
   * null when neither can be had, the reason added to `record`.
   */
  abstract provider(record: RevocationRecord): RevocationProvider;

  /**
   * Before a signature is made with certificates of this chain (DER, leaf first): throws CertificateRevokedError when
   * one of them is revoked now (as its OCSP responder or CRL says; the development PKI's from its own records).
   */
  abstract assertNotRevoked(chain: Uint8Array[]): Promise<void>;
}
