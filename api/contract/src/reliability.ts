/**
 * Issue 24, "Nothing lost, nothing stuck": the watchdog's findings, what the API answers while the disk or the
 * database is failing, retention and a signer's data. The API answers these shapes; the console reads them.
 */
import { SigningMethod, type SigningMethodCode } from './status';

// ---------------------------------------------------------------------------------------------------------------
// The watchdog

/**
 * What the watchdog looks for: a request whose signatures wait to be applied or sealed with no seal job left to do
 * it (all signed and not completed; a seal job failed or interrupted past its limit); a party in 'signing' for longer
 * than its method allows; an invitation that was never sent (its messages failed, or the next signer of a sequential
 * request never invited).
 */
export const WATCHDOG_FINDING_KINDS = ['seal_stuck', 'signing_too_long', 'invitation_not_sent'] as const;
export type WatchdogFindingKind = (typeof WATCHDOG_FINDING_KINDS)[number];

/**
 * open: found and being retried by the watchdog; reported: it could not move it by itself (not safe to retry, or its
 * retries are used up), and the administrators were told; resolved: it moved on (completed, signed, sent…).
 */
export const WATCHDOG_FINDING_STATES = ['open', 'reported', 'resolved'] as const;
export type WatchdogFindingState = (typeof WATCHDOG_FINDING_STATES)[number];

/** Retries the watchdog makes by itself (spaced by the jobs' backoff) before it reports a finding. */
export const WATCHDOG_MAX_RETRIES = 3;

/**
 * How long a party may stay in 'signing' (accepted, nothing submitted) before it is reported, by method: an Aadhaar
 * eSign transaction lives 30 minutes at the ESP; a DSC token signs in seconds once the agent is asked; an electronic
 * signature's page keeps a signer session 4 hours at most.
 */
export const SIGNING_TIME_LIMITS_SECONDS: Record<SigningMethodCode | 'none', number> = {
  [SigningMethod.Aadhaar]: 30 * 60,
  [SigningMethod.DSC]: 30 * 60,
  [SigningMethod.ESignature]: 4 * 3600,
  none: 4 * 3600,
};

/** An unsent invitation is reported once its messages failed, or waited this long without being sent. */
export const INVITATION_SEND_LIMIT_SECONDS = 3600;

/** A finding as GET /api/watchdog/findings answers it. */
export interface WatchdogFinding {
  id: number;
  refId: number;
  filename: string;
  /** The party it is about, when it is about one. */
  party_order: number | null;
  kind: WatchdogFindingKind;
  state: WatchdogFindingState;
  /** What is wrong, in a sentence (WatchdogMessages). */
  detail: string;
  /** Retries so far (the watchdog's and people's). */
  retries: number;
  /** Whether POST …/retry can do something about it (a seal to queue, messages to send again, a signer to invite). */
  retryable: boolean;
  first_seen_at: string;
  last_seen_at: string;
  /** When the watchdog retries it next by itself; null when it will not. */
  next_retry_at: string | null;
  reported_at: string | null;
  resolved_at: string | null;
}

/** GET /api/watchdog/findings sorts by these; the latest seen first by default. */
export const WATCHDOG_FINDING_SORT_FIELDS = ['id', 'last_seen_at', 'first_seen_at', 'kind', 'state'] as const;

/** POST /api/watchdog/findings/{id}/retry: what was done, and the finding as it is now. */
export interface WatchdogRetryResult {
  message: string;
  finding: WatchdogFinding;
}

/** The watchdog's texts: each finding's detail, the retry's answers and the dashboard's banner. */
export const WatchdogMessages = {
  sealNoJob: 'Every signature is in, but no seal job is left to apply it or seal the document.',
  sealFailed: 'The seal job gave up after {attempts} attempts: {error}',
  sealInterrupted: 'The seal job was interrupted too many times (the server stopped while sealing).',
  signingTooLong: 'Signer {order} ({method}) has been signing for {duration}, longer than the method allows.',
  invitationFailed: 'The invitation to signer {order} could not be sent: {error}',
  invitationWaiting: 'The invitation to signer {order} has not been sent after {duration}.',
  nextSignerNotInvited: 'Signer {order} is next but was never invited.',
  retried: 'Queued again.',
  notRetryable:
    'The watchdog cannot move this on: only the signer can finish signing. Resend the invitation or cancel the request.',
  alreadyResolved: 'This has moved on already; nothing to retry.',
  findingNotFound: "No finding '{id}'.",
  bannerTitle: 'Requests that need attention',
  bannerRetry: 'Retry',
  bannerNone: 'Nothing is stuck.',
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Faults: a full or read-only disk, a database that went away

/**
 * What the API answers (503 UNAVAILABLE, with Retry-After) while it cannot write: nothing of the call was kept, and it
 * works again by itself when the fault ends. `/health/ready` answers 503 meanwhile.
 */
export const FaultMessages = {
  storageFull:
    'The server cannot store documents right now: its disk is full. Nothing was saved; please try again later.',
  storageReadOnly:
    'The server cannot store documents right now: its data folder is read-only. Nothing was saved; please try again later.',
  databaseUnavailable: 'The database is not reachable right now. Nothing was saved; please try again in a few minutes.',
  databaseReadOnly:
    'The database cannot be written right now (its disk is full or read-only). Nothing was saved; please try again later.',
} as const;

/** Seconds a client is told to wait (Retry-After) after a 503 of FaultMessages. */
export const FAULT_RETRY_AFTER_SECONDS = 30;

// ---------------------------------------------------------------------------------------------------------------
// Backups (`npm run manage -w api -- backup FILE` and `restore FILE`, and the scheduled backups of BACKUP_DIR)

/** What the management command and the scheduled backup say (operators read them). */
export const BackupMessages = {
  coversSqlite: 'the SQLite database, copied by its online backup while the server runs',
  coversFiles: 'every stored document the database refers to ({count} files, each checked against its SHA-256)',
  coversAllFiles:
    'every document in {dir} ({count} files, each checked against its SHA-256); take your database dump first',
  notCoveredMysql:
    'the MariaDB/MySQL database (DATABASE_URL): back it up with your own dumps (mariadb-dump --single-transaction, or mariabackup) taken before this archive; documents are never changed, and deleted only by retention, so files copied after the dump hold every one it refers to',
  notCoveredS3:
    'the documents in the S3 bucket {bucket}: keep the bucket versioned or replicated (objects are never overwritten), and copy it after the database backup so it holds every document the database refers to',
  nothingToBackUp:
    'Nothing to back up here: the database is MariaDB/MySQL (DATABASE_URL) and the documents are in the S3 bucket {bucket}. Back up the database with mariadb-dump or mariabackup, then the bucket (versioned or replicated); README.md, "Backups", gives the procedure.',
  missingDocument:
    'The database refers to {count} document(s) that are not in {dir} (the first: {key}); the backup was not written. Run it again; if it persists, the data directory has lost documents.',
  damagedDocument:
    'The stored document {key} does not match its SHA-256 (the file is damaged); the backup was not written.',
  databaseDamaged: 'The copy of the database failed its integrity check ({detail}); the backup was not written.',
  notAnArchive: 'This is not an e-Sign backup, or its end is damaged: {file} was refused and nothing was written.',
  checksumMismatch:
    'The backup does not match its checksum (a byte changed since it was written): {file} was refused and nothing was written.',
  manifestMismatch: 'The backup does not match its manifest ({detail}): {file} was refused and nothing was written.',
  notFresh:
    'DATA_DIR {dir} is not empty: restore into a new, empty DATA_DIR (move the old one aside first); nothing was written.',
  wrongEngine:
    'This backup holds a {archive} database but this installation uses {configured}; nothing was written. {hint}',
  restored: 'Restored {count} documents and the database into {dir}. Start the server with this DATA_DIR.',
  restoredFiles:
    'Restored {count} documents into {dir}. The database is not in this archive: restore it from your dump into DATABASE_URL before starting the server.',
  written: 'Backup written to {file} ({count} documents, {size}).',
  holds: 'It holds: {what}.',
  notHeld: 'Not in it (your own backups must hold it): {what}.',
  secret:
    "Keep it safe: it holds the installation's secrets (signing-link and OTP keys, seal and CA keys) and every document.",
  noDatabase: 'There is no database at {file}: nothing to back up.',
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Retention (per organisation: organisations.retention_days and media_retention_days)

/** The longest retention period that can be set (about a hundred years); null keeps for ever. */
export const RETENTION_MAX_DAYS = 36500;

/** The statuses whose requests retention applies to, counted from when the request ended. */
export const RETENTION_ENDED_STATUSES = ['completed', 'rejected', 'expired', 'cancelled'] as const;

/** Audit event types retention writes in a request's trail (its chain goes on from them). */
export const RETENTION_AUDIT_EVENTS = {
  filesDeleted: 'request.files_deleted',
  mediaDeleted: 'request.media_deleted',
} as const;

export const RetentionMessages = {
  mediaLonger:
    'media_retention_days must not be longer than retention_days: selfies and videos are deleted with the documents at the latest',
  filesDeleted:
    "The documents of this request were deleted at the end of its organisation's retention period; its audit trail and the documents' SHA-256 are kept.",
} as const;

// ---------------------------------------------------------------------------------------------------------------
// A signer's data (India's DPDP Act, 2023): the export and the erasure an administrator runs for one signer

/** What an erasure removes from every party of the signer (the signed documents and the audit trail stay). */
export const SIGNER_ERASED_DATA = ['selfie', 'video', 'location', 'ip', 'phone'] as const;
export type SignerErasedData = (typeof SIGNER_ERASED_DATA)[number];

/** The audit event an erasure writes in each request of the signer (the chain goes on from it). */
export const SIGNER_ERASED_EVENT = 'party.data_erased';

export const SignerDataMessages = {
  notAnAddress: 'identifier must be an e-mail address or an Indian mobile number',
  noRecords: 'This organisation holds nothing about {identifier}.',
  kept: "Kept: the signer's name and e-mail, the signed documents and the audit trail, which the signatures need.",
} as const;

/** POST /api/signers/erase's answer. */
export interface SignerErasureResult {
  /** The address as matched: a lower-case e-mail, or +91 and 10 digits. */
  identifier: string;
  /** The signer's parties (one per request) that were erased. */
  parties: number;
  /** Ref IDs of their requests. */
  requests: number[];
  erased: readonly SignerErasedData[];
  /** Stored files deleted (selfies no other row needs). */
  files_deleted: number;
  kept: string;
}
