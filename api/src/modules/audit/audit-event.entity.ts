import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, CreatedAtColumn, JsonColumn } from '../../database/columns';

/**
 * What happened to a request, party, template or setting, written in the same transaction as the change. Events of a
 * request are hash-chained (hash = SHA-256 over the previous hash and this event), so the certificate of completion
 * and `esign-cli verify` can show the trail was not edited.
 */
@Entity('audit_events')
@Index('idx_audit_org_ref', ['orgId', 'refId', 'id'])
@Index('idx_audit_type', ['type'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'ref_id', type: 'bigint', nullable: true, transformer: bigintNumber })
  refId!: number | null;

  @Column({ name: 'party_order', type: 'int', nullable: true })
  partyOrder!: number | null;

  /** e.g. request.created, request.saved, request.submitted, party.invited, party.reminded, request.expired */
  @Column({ type: 'varchar', length: 48 })
  type!: string;

  /** Who: user:<id>, key:<id>, party:<order>, system. */
  @Column({ type: 'varchar', length: 80 })
  actor!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @JsonColumn({ nullable: true })
  data!: Record<string, unknown> | null;

  @Column({ name: 'prev_hash', type: 'varchar', length: 64, nullable: true })
  prevHash!: string | null;

  @Column({ type: 'varchar', length: 64 })
  hash!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
