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
