import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { SigningMethodCode } from '@esign/contract';
import { bigintNumber, CreatedAtColumn, DateTimeColumn, JsonColumn } from '../../database/columns';

/**
 * A signature made outside, waiting to be finished by the seal job (issue 19): the CMS an Aadhaar ESP answered, or the
 * one assembled from a DSC token's signature, over a document prepared from `base_file_key`. The seal job adds the
 * signature-timestamp and embeds it (retried while no TSA answers), or discards it when the document moved on.
 */
@Entity('external_signatures')
@Index('idx_external_signatures_party', ['partyId', 'status'])
export class ExternalSignatureEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  @Column({ name: 'party_id', type: 'varchar', length: 36 })
  partyId!: string;

  /** 0 Aadhaar eSign, 1 DSC. */
  @Column({ type: 'int' })
  method!: SigningMethodCode;

  /** The document the prepared one was made from: it must still be the request's current one. */
  @Column({ name: 'base_file_key', type: 'varchar', length: 64 })
  baseFileKey!: string;

  @Column({ name: 'prepared_file_key', type: 'varchar', length: 64 })
  preparedFileKey!: string;

  /** The CMS as it came (document storage, by its SHA-256). */
  @Column({ name: 'cms_key', type: 'varchar', length: 64 })
  cmsKey!: string;

  @JsonColumn()
  certificate!: { subject: string; issuer: string; serialNumber: string };

  /** pending → applied, or discarded (the document changed first). */
  @Column({ type: 'varchar', length: 16 })
  status!: 'pending' | 'applied' | 'discarded';

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'finished_at', nullable: true })
  finishedAt!: Date | null;
}
