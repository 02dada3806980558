import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '../../../database/columns';

/**
 * A certification authority whose key this installation holds, and so answers for (OCSP at /pki/ocsp, its CRL at
 * /pki/crl/{id}.crl, its certificate at /pki/ca/{id}.crt): the development root, each organisation's issuing CA (a
 * generated one or the CA of an imported PKCS#12), and the sandbox ESP's CA. The key stays in `seal_keys` (`key_id`);
 * an OCSP request names its CA by the hash of the CA's public key, hence the two hash columns.
 */
@Entity('pki_authorities')
@Index('idx_pki_authorities_key_sha1', ['keySha1'])
@Index('idx_pki_authorities_key_sha256', ['keySha256'])
export class PkiAuthorityEntity {
  /** The CA's id in URLs (`caIdOf`): `dev-root-…`, `org-<orgId>-…`, `sandbox-esp-…`. */
  @PrimaryColumn({ type: 'varchar', length: 96 })
  id!: string;

  /** The `seal_keys` row holding the CA's certificate and key. */
  @Column({ name: 'key_id', type: 'varchar', length: 80 })
  keyId!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId!: string | null;

  @Column({ name: 'cert_pem', type: 'text' })
  certPem!: string;

  /** SHA-1 and SHA-256 of the subjectPublicKey BIT STRING's value (RFC 6960 CertID issuerKeyHash), hex. */
  @Column({ name: 'key_sha1', type: 'varchar', length: 40 })
  keySha1!: string;

  @Column({ name: 'key_sha256', type: 'varchar', length: 64 })
  keySha256!: string;

  /**
   * The CA's delegated OCSP responder (issueOcspResponder): certificate and PKCS#8 key, made at the first answer and
   * replaced when it is no longer valid.
   */
  @Column({ name: 'responder_cert_pem', type: 'text', nullable: true })
  responderCertPem!: string | null;

  @Column({ name: 'responder_key_pem', type: 'text', nullable: true })
  responderKeyPem!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
