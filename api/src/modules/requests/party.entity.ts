import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { PartyStatus, SignatureType } from '@esign/contract';
import {
  bigintNumber,
  CreatedAtColumn,
  DateTimeColumn,
  JsonColumn,
  UpdatedAtColumn,
  type JsonValue,
} from '../../database/columns';

/** A signature box in the real page's user space (PDF points, origin bottom-left), for a run of pages. */
export interface PlacedBox {
  pages: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One recipient of a request: a signer, or (observer) one who receives a copy. */
@Entity('parties')
@Index('uq_parties_request_order', ['refId', 'order'], { unique: true })
@Index('idx_parties_org_ref', ['orgId', 'refId'])
export class PartyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  /** 1..6 */
  @Column({ name: 'party_order', type: 'int' })
  order!: number;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 254 })
  email!: string;

  /** As entered, e.g. +91 98765 43210. */
  @Column({ name: 'phone_number', type: 'varchar', length: 32 })
  phoneNumber!: string;

  @Column({ type: 'boolean' })
  observer!: boolean;

  @Column({ name: 'signature_type', type: 'varchar', length: 16, nullable: true })
  signatureType!: SignatureType | null;

  @Column({ type: 'varchar', length: 16 })
  status!: PartyStatus;

  /** SHA-256 of the party's link token; null until invited, replaced on resend (the old link dies). */
  @Index('uq_parties_token', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true })
  tokenHash!: string | null;

  /**
   * The token is HMAC(app secret, nonce): the database alone does not give the link away, and staff can still be
   * shown the sign_url. A resend draws a new nonce, so the old link dies.
   */
  @Column({ name: 'token_nonce', type: 'varchar', length: 32, nullable: true })
  tokenNonce!: string | null;

  // Placement as the console sent it (spec: pageNo, apply_all, rectangle, drag_coord) and as stored on real pages.
  @JsonColumn({ name: 'page_no', nullable: true })
  pageNo!: number[] | null;

  @Column({ name: 'apply_all', type: 'boolean', default: false })
  applyAll!: boolean;

  @Column({ type: 'varchar', length: 64, nullable: true })
  rectangle!: string | null;

  @JsonColumn({ name: 'drag_coord', nullable: true })
  dragCoord!: JsonValue | null;

  @JsonColumn({ nullable: true })
  boxes!: PlacedBox[] | null;

  @DateTimeColumn({ name: 'invited_at', nullable: true })
  invitedAt!: Date | null;

  @DateTimeColumn({ name: 'reminded_at', nullable: true })
  remindedAt!: Date | null;

  @DateTimeColumn({ name: 'signed_at', nullable: true })
  signedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
