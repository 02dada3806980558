import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type {
  RecipientLanguage,
  PartyStatus,
  SignatureKind,
  SignatureLevel,
  SignatureStyle,
  SignatureType,
  SigningMethodCode,
} from '@esign/contract';
import {
  bigintNumber,
  CreatedAtColumn,
  DateTimeColumn,
  JsonColumn,
  numeric,
  UpdatedAtColumn,
  type JsonValue,
} from '../../database/columns';
import type { PlacedBox } from '../documents/pdf/geometry';
import type { PartyField } from './fields';

/** Where the signer was when they posted their position, and what the organisation's policy made of it. */
export interface PartyLiveness {
  score: number;
  threshold: number;
  passed: boolean;
  blinks: number;
  frames: number;
  framesWithFace: number;
  /** ISO time of the analysis. */
  at: string;
}

export interface PartyLocation {
  latitude: number;
  longitude: number;
  /** Country name from the boundaries, null at sea or outside every boundary. */
  country: string | null;
  inIndia: boolean;
  allowed: boolean;
}

/** One recipient of a request: a signer, or (observer) one who receives a copy. */
@Entity('parties')
@Index('uq_parties_request_order', ['refId', 'order'], { unique: true })
@Index('idx_parties_org_ref', ['orgId', 'refId'])
@Index('idx_parties_signature_level', ['signatureLevel'])
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

  /** The fields beyond the signature box placed for this party, with their values (issue 21); null: none. */
  @JsonColumn({ nullable: true })
  fields!: PartyField[] | null;

  /** The recipient's language (issue 22): their e-mails, SMS and signing page; null is English. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  language!: RecipientLanguage | null;

  @DateTimeColumn({ name: 'invited_at', nullable: true })
  invitedAt!: Date | null;

  @DateTimeColumn({ name: 'reminded_at', nullable: true })
  remindedAt!: Date | null;

  /** When the signature was applied to the document (the party is then completed). */
  @DateTimeColumn({ name: 'signed_at', nullable: true })
  signedAt!: Date | null;

  // The recipient's side (spec section 4): opened, accepted, OTP, signer details, the signature itself.
  @DateTimeColumn({ name: 'opened_at', nullable: true })
  openedAt!: Date | null;

  @DateTimeColumn({ name: 'accepted_at', nullable: true })
  acceptedAt!: Date | null;

  @DateTimeColumn({ name: 'otp_verified_at', nullable: true })
  otpVerifiedAt!: Date | null;

  @DateTimeColumn({ name: 'rejected_at', nullable: true })
  rejectedAt!: Date | null;

  @Column({ name: 'reject_remark', type: 'varchar', length: 1000, nullable: true })
  rejectRemark!: string | null;

  /** The method chosen: 0 Aadhaar, 1 DSC, 2 e-Signature. */
  @Column({ name: 'sign_method', type: 'int', nullable: true })
  signMethod!: SigningMethodCode | null;

  /** Signing attempts that failed (the failed page); at the limit, retry answers 'Count Exceeded'. */
  @Column({ name: 'failed_attempts', type: 'int', default: 0 })
  failedAttempts!: number;

  @Column({ name: 'last_error_code', type: 'varchar', length: 32, nullable: true })
  lastErrorCode!: string | null;

  @Column({ name: 'last_error_message', type: 'varchar', length: 500, nullable: true })
  lastErrorMessage!: string | null;

  /** From the connection (behind TRUSTED_PROXIES, the forwarded client address), never from the page. */
  @Column({ name: 'signer_ip', type: 'varchar', length: 64, nullable: true })
  signerIp!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 300, nullable: true })
  userAgent!: string | null;

  @JsonColumn({ name: 'geo', nullable: true })
  geo!: PartyLocation | null;

  /** The face capture (PNG or JPEG) in document storage. */
  @Column({ name: 'selfie_key', type: 'varchar', length: 64, nullable: true })
  selfieKey!: string | null;

  /** The server's face check of the selfie: the detector's confidence for its one face (null: not checked). */
  @Column({ name: 'face_score', type: 'double', nullable: true, transformer: numeric })
  faceScore!: number | null;

  /** The last liveness video's result (the server's blink score against the organisation's threshold then). */
  @JsonColumn({ name: 'liveness', nullable: true })
  liveness!: PartyLiveness | null;

  /** Liveness videos analysed for this party (bounded by Limits.livenessMaxAttempts). */
  @Column({ name: 'liveness_attempts', type: 'int', default: 0 })
  livenessAttempts!: number;

  /** The drawn or uploaded signature image in document storage; null for a typed name. */
  @Column({ name: 'signature_key', type: 'varchar', length: 64, nullable: true })
  signatureKey!: string | null;

  @Column({ name: 'signature_kind', type: 'varchar', length: 16, nullable: true })
  signatureKind!: SignatureKind | null;

  @Column({ name: 'signature_style', type: 'varchar', length: 8, nullable: true })
  signatureStyle!: SignatureStyle | null;

  /** Set when the signer submits; the seal job applies it to the document, then the party is completed. */
  @DateTimeColumn({ name: 'signature_submitted_at', nullable: true })
  signatureSubmittedAt!: Date | null;

  /** The certificate that made this party's PDF signature. */
  @JsonColumn({ name: 'sign_certificate', nullable: true })
  signCertificate!: { subject: string; issuer: string; serialNumber: string } | null;

  /** The PAdES level this party's signature reached when it was applied: B-B, or B-T with its timestamp. */
  @Column({ name: 'signature_level', type: 'varchar', length: 8, nullable: true })
  signatureLevel!: SignatureLevel | null;

  /** The time its signature-timestamp token proves, and the TSA that made it. */
  @DateTimeColumn({ name: 'timestamp_at', nullable: true })
  timestampAt!: Date | null;

  @Column({ name: 'timestamp_tsa', type: 'varchar', length: 200, nullable: true })
  timestampTsa!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
