import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '../../../database/columns';

export type SealKeyKind = 'root' | 'issuer' | 'seal' | 'asp' | 'esp-ca' | 'esp' | 'tsa';

/**
 * Certificates and keys of the seals, shared by every API node through the database: the development root CA
 * (`root`), and per organisation the issuing CA that certifies each signer's one-time certificate (`issuer`) and the
 * certificate of the final seal (`seal`); for Aadhaar eSign without a real ESP, the ASP's key (`asp`) and the built-in
 * sandbox ESP's test CA (`esp-ca`) and signer (`esp`). Generated at first need, or imported from an organisation's
 * PKCS#12.
 */
@Entity('seal_keys')
export class SealKeyEntity {
  /** 'root', or '<orgId>:issuer' / '<orgId>:seal'. */
  @PrimaryColumn({ type: 'varchar', length: 80 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId!: string | null;

  @Column({ type: 'varchar', length: 8 })
  kind!: SealKeyKind;

  @Column({ name: 'cert_pem', type: 'text' })
  certPem!: string;

  /** PKCS#8 PEM. */
  @Column({ name: 'key_pem', type: 'text' })
  keyPem!: string;

  /** The issuer's chain up to the root, PEM certificates one after another ('' for the root). */
  @Column({ name: 'chain_pem', type: 'text' })
  chainPem!: string;

  /** generated, or pkcs12 (imported by the management command). */
  @Column({ type: 'varchar', length: 16 })
  source!: 'generated' | 'pkcs12';

  @CreatedAtColumn()
  createdAt!: Date;
}
