import type { UserRole } from './administration';
import type { ReminderHours } from './limits';
import type { OrgMode, SignatureLevel } from './status';

/** GET /consumers/{username}/key-auth: a fresh session key (the Kong key-auth shape the console reads). */
export interface KeyAuthCredential {
  id: string;
  key: string;
  created_at: number;
  /** Seconds of inactivity after which the key stops working. */
  idle_timeout: number;
  /** Absolute expiry, epoch seconds. */
  expires_at: number;
}
export interface KeyAuthResponse {
  data: KeyAuthCredential[];
  next: null;
}

/** GET /consumers/{username}: the consumer record; tags = [orgId, tag, mode]. */
export interface ConsumerResponse {
  id: string;
  username: string;
  custom_id: string;
  tags: [orgId: string, tag: string, mode: OrgMode];
  created_at: number;
}

/** GET /api/whoami: who the `apikey` is (esign-cli login and whoami). */
export interface WhoAmIResponse {
  kind: 'session' | 'org';
  orgId: string;
  /** The console user behind a session key; null for an organisation API key. */
  username: string | null;
  /** The name of an organisation API key; null for a session key. */
  keyName: string | null;
  /** What the caller may do (issue 22): a session key has its user's role; an organisation API key acts as admin. */
  role: UserRole;
}

/** Every error the API answers has this body. `code` is the HTTP status; `error` the domain code. */
export interface ErrorBody {
  code: number;
  error: string;
  message: string;
  /** Some /v1 clients read status.statusMessage (spec section 7). */
  status: { statusMessage: string };
}

/** Organisation as the console and the CLI see it. */
export interface Organisation {
  id: string;
  name: string;
  mode: OrgMode;
  tag: string;
  settings: OrganisationSettings;
  created_at: string;
  updated_at: string;
}

export interface OrganisationSettings {
  signature_types: string[];
  face_capture: boolean;
  aadhaar_face_capture: boolean;
  esignature_face_capture: boolean;
  location_capture: boolean;
  allow_signing_from_india: boolean;
  live_video: boolean;
  live_video_threshold: number;
  return_url: string | null;
  dsc_download_url: string | null;
  /** The DSC panel's tutorial video (step 1 links to it when set). */
  dsc_tutorial_url: string | null;
  request_expiry_days: number;
  /** IANA time zone every time shown to a person is written in (default Asia/Kolkata). */
  time_zone: string;
  /** The PAdES level every signature of the organisation's documents reaches (default B-LTA). */
  signature_level: SignatureLevel;
  has_logo: boolean;
  /**
   * The reminder /request-initiate starts with (issue 22): 12, 24 or 48 hours, or null for none ('Set Reminder'
   * unticked, as the specification's form starts).
   */
  reminder_default_hours: ReminderHours | null;
  /**
   * Retention (issue 24): days an ended request (completed, rejected, expired, cancelled) keeps its documents, selfies
   * and signature images; null keeps them for ever (the default). Its audit trail and the documents' hashes stay.
   */
  retention_days?: number | null;
  /** Days selfies and videos are kept when shorter than retention_days; null: as long as the documents. */
  media_retention_days?: number | null;
}

/** Long-lived organisation API key (the plain key is shown once, at creation). */
export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
export interface CreatedApiKey extends ApiKeySummary {
  key: string;
}

/** GET /api/api-keys sorts by these (sort=["created_at","DESC"]); newest first by default. Names sort case aside. */
export const API_KEY_SORT_FIELDS = ['name', 'prefix', 'created_at', 'last_used_at', 'revoked_at', 'id'] as const;
export type ApiKeySortField = (typeof API_KEY_SORT_FIELDS)[number];

/** GET /api/api-keys's filter: `q` the name or the prefix contains it (case aside); `revoked` true or false. */
export interface ApiKeyListFilter {
  q?: string;
  revoked?: boolean;
}
export const API_KEY_FILTERS = ['q', 'revoked'] as const satisfies readonly (keyof ApiKeyListFilter)[];

export interface HealthResponse {
  status: 'ok';
  database: 'sqlite' | 'mysql';
  version: string;
}

/**
 * GET /health/ready: 200 with status 'ready' when every dependency answers, else 503 with status 'unavailable'. Each
 * check is 'ok', 'off' (Redis not configured) or the failing check's short reason.
 */
export interface ReadinessResponse {
  status: 'ready' | 'unavailable';
  checks: { database: string; redis: string; storage: string };
}
