/**
 * A request's evidence as the console's request page reads it (issue 22): the audit trail
 * (GET /api/requests/{refId}/audit) and the signature verification report (GET /api/requests/{refId}/verification,
 * the report `esign-cli verify` prints). The API answers more than these fields; these are the ones a client may rely
 * on.
 */
import type { SignatureLevel, RequestStatus } from './status';

/** One event of a request's hash-chained audit trail. */
export interface AuditTrailEvent {
  /** When (ISO 8601). */
  at: string;
  /** What: 'request.created', 'party.signed', … */
  type: string;
  /** Who: a staff user's or key's name, 'Name (email)' for a party, or 'system'. */
  actor: string;
  /** From where: the address the call came from; null for the server's own events. */
  ip: string | null;
  /** The event's details (the method chosen, a remark, the country a position is in, …). */
  data: Record<string, unknown> | null;
  hash: string;
  prevHash?: string;
}

export interface AuditTrailView {
  refId: number;
  events: AuditTrailEvent[];
  /** The chain recomputed now; lastHash is the hash the certificate of completion prints. */
  chain: { intact: boolean; lastHash: string | null };
}

/** A certificate chain's check: trusted up to one of the anchors, or why not. */
export interface ChainCheckView {
  status: 'trusted' | 'untrusted' | 'not checked';
  reason: string | null;
  path: string[];
}

export interface TimestampView {
  time: string | null;
  tsa: string | null;
  problem: string | null;
}

export interface RevocationView {
  subject: string;
  role: string;
  status: 'good' | 'revoked' | 'unknown' | 'no data';
  source: 'OCSP' | 'CRL' | null;
}

/** One signature of the signed document as the verification report judges it. */
export interface SignatureCheckView {
  field: string;
  signer: string | null;
  signedAt: string | null;
  signedAtSource: 'timestamp' | 'signingTime' | 'M' | null;
  integrity: 'ok' | 'BROKEN';
  chain: ChainCheckView;
  coversWholeFile: boolean;
  issuer: string | null;
  method: string | null;
  level: SignatureLevel | null;
  timestamp: TimestampView | null;
  revocation: RevocationView[];
  valid: boolean;
  problems: string[];
}

export interface DocumentTimestampView extends TimestampView {
  field: string;
  valid: boolean;
  problems: string[];
}

export interface VerificationReportView {
  /** Every signature and document timestamp passed every check, and the audit chain is intact. */
  ok: boolean;
  refId: number;
  filename: string;
  documentSha256: string;
  requestStatus: RequestStatus;
  checkedAt: string;
  trustAnchors: string[];
  audit: { events: number; intact: boolean; lastHash: string | null };
  signatures: SignatureCheckView[];
  documentTimestamps: DocumentTimestampView[];
  problems: string[];
}
