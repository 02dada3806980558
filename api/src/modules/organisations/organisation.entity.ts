import { Column, Entity, PrimaryColumn } from 'typeorm';
import {
  DEFAULT_TIME_ZONE,
  SIGNATURE_TYPES,
  type LogoType,
  type OrgMode,
  type ReminderHours,
  type SignatureLevel,
} from '@esign/contract';
import { commaList, CreatedAtColumn, numeric, UpdatedAtColumn } from '../../database/columns';

@Entity('organisations')
export class OrganisationEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 8, default: 'test' })
  mode!: OrgMode;

  @Column({ type: 'varchar', length: 64, default: '' })
  tag!: string;

  /** Signature types staff may choose for a signer. */
  @Column({
    name: 'signature_types',
    type: 'varchar',
    length: 255,
    default: SIGNATURE_TYPES.join(','),
    transformer: commaList,
  })
  signatureTypes!: string[];

  @Column({ name: 'face_capture', type: 'boolean', default: false })
  faceCapture!: boolean;

  @Column({ name: 'aadhaar_face_capture', type: 'boolean', default: false })
  aadhaarFaceCapture!: boolean;

  @Column({ name: 'esignature_face_capture', type: 'boolean', default: false })
  esignatureFaceCapture!: boolean;

  @Column({ name: 'location_capture', type: 'boolean', default: false })
  locationCapture!: boolean;

  /** Location policy: whether signing from inside India is allowed when location capture is on. */
  @Column({ name: 'allow_signing_from_india', type: 'boolean', default: true })
  allowSigningFromIndia!: boolean;

  @Column({ name: 'live_video', type: 'boolean', default: false })
  liveVideo!: boolean;

  @Column({ name: 'live_video_threshold', type: 'double', default: 0.5, transformer: numeric })
  liveVideoThreshold!: number;

  @Column({ name: 'return_url', type: 'varchar', length: 2048, nullable: true })
  returnUrl!: string | null;

  @Column({ name: 'dsc_download_url', type: 'varchar', length: 2048, nullable: true })
  dscDownloadUrl!: string | null;

  /** The DSC panel's tutorial video (step 1 of the signing page's DSC panel). */
  @Column({ name: 'dsc_tutorial_url', type: 'varchar', length: 2048, nullable: true })
  dscTutorialUrl!: string | null;

  /**
   * The PAdES level every signature of the organisation's documents must reach (issue 19): B-LTA by default. A
   * completion below it happens only when an operator accepts it, and is audited.
   */
  @Column({ name: 'signature_level', type: 'varchar', length: 8, default: 'B-LTA' })
  signatureLevel!: SignatureLevel;

  /** IANA time zone in which times are written for people (lists, e-mails, signer pages, the certificate). */
  @Column({ name: 'time_zone', type: 'varchar', length: 64, default: DEFAULT_TIME_ZONE })
  timeZone!: string;

  @Column({ name: 'request_expiry_days', type: 'int', default: 30 })
  requestExpiryDays!: number;

  /** SHA-256 key of the logo (PNG, JPEG or SVG) in document storage; the default logo is served when null. */
  @Column({ name: 'logo_key', type: 'varchar', length: 64, nullable: true })
  logoKey!: string | null;

  /** The logo's type as its content showed it (image/png, image/jpeg, image/svg+xml); null: a PNG of before. */
  @Column({ name: 'logo_type', type: 'varchar', length: 16, nullable: true })
  logoType!: LogoType | null;

  /** The reminder /request-initiate starts with: 12, 24 or 48 hours; null for none (issue 22). */
  @Column({ name: 'reminder_default_hours', type: 'int', nullable: true })
  reminderDefaultHours!: ReminderHours | null;

  /**
   * Issue 24, retention: days an ended request (completed, rejected, expired, cancelled) keeps its documents, selfies
   * and signature images after it ended; null keeps them for ever (the default).
   */
  @Column({ name: 'retention_days', type: 'int', nullable: true })
  retentionDays!: number | null;

  /** Days selfies are kept (videos are never stored), when shorter than retention_days; null: as the documents. */
  @Column({ name: 'media_retention_days', type: 'int', nullable: true })
  mediaRetentionDays!: number | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
