import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { RequestStatus, SignatureLevel } from '@esign/contract';
import { bigintNumber, CreatedAtColumn, DateTimeColumn, JsonColumn, UpdatedAtColumn } from '../../database/columns';
import type { PageGeometry } from '../documents/pdf/geometry';

/**
 * A signing request: a document sent (or, while `status` is draft, to be sent) to up to six parties. `refId` is the
 * numeric Ref ID the specification shows; random, so it tells nothing about other organisations' volume.
 */
@Entity('requests')
// The console's lists read one index: newest first (by the time each row is listed) within (organisation, draft or not,
// not deleted), then by Ref ID (the tie-break of a page's order, so no page is sorted); the file name is in it too so a
// file-name search scans the index, not the table.
@Index('idx_requests_listed', ['orgId', 'isDraft', 'deletedAt', 'listedAt', 'refId', 'filename'])
@Index('idx_requests_evidence_level', ['evidenceLevel'])
// The caller's idempotency reference (POST /v1/upload clientReference / Idempotency-Key): one request per reference and
// organisation; requests without one (NULL) are not constrained.
@Index('idx_requests_client_reference', ['orgId', 'clientReference'], { unique: true })
export class RequestEntity {
  @PrimaryColumn({ name: 'ref_id', type: 'bigint', transformer: bigintNumber })
  refId!: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ type: 'varchar', length: 255 })
  filename!: string;

  /** SHA-256 key of the uploaded PDF in document storage (after repair, when it needed one). */
  @Column({ name: 'file_key', type: 'varchar', length: 64 })
  fileKey!: string;

  @Column({ name: 'file_size', type: 'int' })
  fileSize!: number;

  @Column({ name: 'total_pages', type: 'int' })
  totalPages!: number;

  @JsonColumn()
  geometry!: PageGeometry[];

  /** Sequential signing (one signer at a time, in order) when true. */
  @Column({ name: 'check_order', type: 'boolean' })
  checkOrder!: boolean;

  @Column({ name: 'otp_required', type: 'boolean' })
  otpRequired!: boolean;

  @Column({ type: 'boolean', default: false })
  reminder!: boolean;

  /** Hours between reminders: 12, 24 or 48; null when reminders are off. */
  @Column({ name: 'reminder_duration', type: 'int', nullable: true })
  reminderDuration!: number | null;

  @Column({ type: 'varchar', length: 16 })
  status!: RequestStatus;

  /** True until the request is first processed; kept apart from status so the drafts list reads one index. */
  @Column({ name: 'is_draft', type: 'boolean' })
  isDraft!: boolean;

  @Column({ name: 'signers_total', type: 'int' })
  signersTotal!: number;

  @Column({ name: 'signers_done', type: 'int', default: 0 })
  signersDone!: number;

  @Column({ name: 'template_id', type: 'varchar', length: 36, nullable: true })
  templateId!: string | null;

  /** The caller's reference for idempotent uploads (1..100 characters), unique within the organisation. */
  @Column({ name: 'client_reference', type: 'varchar', length: 100, nullable: true })
  clientReference!: string | null;

  /** The user or organisation key that created it. */
  @Column({ name: 'created_by', type: 'varchar', length: 36 })
  createdBy!: string;

  @DateTimeColumn({ name: 'submitted_at', nullable: true })
  submittedAt!: Date | null;

  /**
   * Where the row sorts in the console's lists, newest first: for a draft the time of its last SAVE, for a request
   * sent the time it was submitted. Null for a draft never saved (PROCEED uploads it before the placement): it is not
   * listed, and the drafts cleanup removes it once abandoned.
   */
  @DateTimeColumn({ name: 'listed_at', nullable: true })
  listedAt!: Date | null;

  @DateTimeColumn({ name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @DateTimeColumn({ name: 'completed_at', nullable: true })
  completedAt!: Date | null;

  /** The signed PDF (every signature so far, then the certificate of completion and the seal). */
  @Column({ name: 'signed_file_key', type: 'varchar', length: 64, nullable: true })
  signedFileKey!: string | null;

  /** The last failure of the seal job (applying signatures, the certificate of completion, the final seal). */
  @Column({ name: 'seal_error', type: 'varchar', length: 500, nullable: true })
  sealError!: string | null;

  @DateTimeColumn({ name: 'seal_failed_at', nullable: true })
  sealFailedAt!: Date | null;

  /**
   * The level the completed document reached (issue 19): B-LTA with its validation data and archive timestamp, or
   * lower when the organisation asks for less (or an operator accepted less: audited).
   */
  @Column({ name: 'evidence_level', type: 'varchar', length: 8, nullable: true })
  evidenceLevel!: SignatureLevel | null;

  /** The last archive timestamp's time, and when it must be renewed (before its TSA certificate expires). */
  @DateTimeColumn({ name: 'archived_at', nullable: true })
  archivedAt!: Date | null;

  @DateTimeColumn({ name: 'archive_renew_at', nullable: true })
  archiveRenewAt!: Date | null;

  /**
   * Issue 24: when the request ended (completed, rejected, expired or cancelled), from which the organisation's
   * retention period counts.
   */
  @DateTimeColumn({ name: 'ended_at', nullable: true })
  endedAt!: Date | null;

  /**
   * When retention deleted the request's documents (the original, every signed version, signature images,
   * attachments, selfies): the request keeps its audit trail and the documents' hashes (`file_key`,
   * `signed_file_key`), so its chain still verifies; the lists show it as archived.
   */
  @DateTimeColumn({ name: 'files_deleted_at', nullable: true })
  filesDeletedAt!: Date | null;

  /** When retention deleted the parties' selfies (their own, shorter period; videos are never stored). */
  @DateTimeColumn({ name: 'media_deleted_at', nullable: true })
  mediaDeletedAt!: Date | null;

  /** Deleted from the console's lists (a draft, or a request that was cancelled by deleting it). */
  @DateTimeColumn({ name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
