import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn } from '../../../database/columns';

/** What a registered certificate is for. */
export const PKI_CERTIFICATE_KINDS = ['root', 'ca', 'seal', 'signer', 'tsa', 'esp', 'asp', 'resident', 'ocsp'] as const;
export type PkiCertificateKind = (typeof PKI_CERTIFICATE_KINDS)[number];

/**
 * The registry of every certificate this installation's CAs issue (PkiAuthorityEntity): what the OCSP responder and the
 * CRLs answer from, and where a revocation is recorded. One row per certificate, written when it is issued (for the
 * one-time certificate of each electronic signature too: one insert), on every API node the same.
 */
@Entity('pki_certificates')
@Index('idx_pki_certificates_ca_revoked', ['caId', 'revokedAt'])
export class PkiCertificateEntity {
  /** Serial number, lower-case hex without leading zeros (`normaliseSerial`). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  serial!: string;

  /** The issuing CA (`pki_authorities.id`); a root is its own issuer. */
  @PrimaryColumn({ name: 'ca_id', type: 'varchar', length: 96 })
  caId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: PkiCertificateKind;

  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId!: string | null;

  @Column({ type: 'text' })
  subject!: string;

  @DateTimeColumn({ name: 'not_before' })
  notBefore!: Date;

  @DateTimeColumn({ name: 'not_after' })
  notAfter!: Date;

  /** SHA-256 of the certificate's DER, hex (the certificate itself is in the documents it signed). */
  @Column({ type: 'varchar', length: 64 })
  sha256!: string;

  @DateTimeColumn({ name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** RFC 5280 CRLReason name (keyCompromise, superseded, …); null while not revoked. */
  @Column({ name: 'revocation_reason', type: 'varchar', length: 32, nullable: true })
  revocationReason!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
