import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, DateTimeColumn } from '../../database/columns';

export type EsignTransactionStatus = 'pending' | 'signed' | 'failed';

/**
 * One Aadhaar eSign attempt of a party (the CCA eSign API's `txn`): the document it was prepared from, the prepared
 * file (stamp and an empty signature placeholder) and the SHA-256 the ESP is asked to sign. The ESP's answer is
 * accepted only for a pending transaction whose hash it signed, and only while the request's document is still the one
 * the preparation started from.
 */
@Entity('esign_transactions')
@Index('idx_esign_tx_party', ['partyId'])
export class EsignTransactionEntity {
  /** The txn sent to the ESP: a random UUID. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  @Column({ name: 'party_id', type: 'varchar', length: 36 })
  partyId!: string;

  /** The request's document the preparation read (signedFileKey or fileKey). */
  @Column({ name: 'base_file_key', type: 'varchar', length: 64 })
  baseFileKey!: string;

  @Column({ name: 'prepared_file_key', type: 'varchar', length: 64 })
  preparedFileKey!: string;

  /** Hex SHA-256 of the bytes the signature covers (the InputHash). */
  @Column({ name: 'digest_hex', type: 'varchar', length: 64 })
  digestHex!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: EsignTransactionStatus;

  @Column({ name: 'error_code', type: 'varchar', length: 32, nullable: true })
  errorCode!: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 500, nullable: true })
  errorMessage!: string | null;

  /** The name in the signer's certificate, once signed (the discrepancy check compares it with the party's). */
  @Column({ name: 'certificate_name', type: 'varchar', length: 200, nullable: true })
  certificateName!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @DateTimeColumn({ name: 'expires_at' })
  expiresAt!: Date;

  @DateTimeColumn({ name: 'finished_at', nullable: true })
  finishedAt!: Date | null;
}
