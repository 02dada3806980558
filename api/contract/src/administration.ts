/**
 * The organisation's own administration (issue 22): roles, staff users and their invitations, the seal certificate,
 * webhook deliveries, and the request actions beyond the specification's (cancel, reseal). The API answers these
 * shapes; the console's resources and pages read them.
 */
import type { RequestListItem } from './requests';
import { StaffRoutes } from './routes';

/**
 * A staff user's role. `admin` (organisation administrator) does everything `staff` does, and administers the
 * organisation: users, API keys, webhooks, settings, logo, seal certificate. An organisation API key acts as `admin`
 * (it is the organisation's own credential, created by an administrator). The seeded demo user is an administrator.
 */
export const USER_ROLES = ['admin', 'staff'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const DEFAULT_USER_ROLE: UserRole = 'staff';

/** A user's state: invited (the set-password link not used yet), active, or disabled (cannot sign in). */
export type StaffUserStatus = 'invited' | 'active' | 'disabled';

/** A staff user as /api/users answers it (never a password or a link). */
export interface StaffUser {
  id: string;
  username: string;
  email: string | null;
  role: UserRole;
  status: StaffUserStatus;
  disabled: boolean;
  /** When the last invitation or password-reset link was sent (ISO 8601); null if none ever was. */
  link_sent_at: string | null;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A username: 3 to 64 characters, letters, digits, dot, underscore, @ or hyphen, starting with a letter or digit. */
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._@-]{2,63}$/;
export const USERNAME_RULE =
  'A username is 3 to 64 characters: letters, digits, dot, underscore, @ or hyphen, starting with a letter or digit.';

/** GET /api/users sorts by these; username ascending by default. */
export const USER_SORT_FIELDS = ['username', 'email', 'role', 'created_at', 'last_login_at', 'id'] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];

/** How long an invitation or password-reset link works. */
export const PASSWORD_LINK_HOURS = 72;
/** The shortest and longest password a user may set. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * GET /consumers/password?token=T: what the set-password page shows before the user types (the link is checked, not
 * used). POST /consumers/password { token, password } answers the same with the password set; the link is then dead.
 */
export interface PasswordLinkView {
  username: string;
  organisation: string;
  purpose: 'invite' | 'reset';
  expires_at: string;
}

/** The organisation's seal certificate (GET and PUT /api/organisations/{orgId}/seal). */
export interface SealCertificateInfo {
  subject: string;
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
  /** Whole days until not_after (negative once expired). */
  days_left: number;
  /** Within SEAL_EXPIRY_WARNING_DAYS of not_after (and not yet expired): the console warns. */
  expiring_soon: boolean;
  expired: boolean;
  /** development: made by this installation under its development root; imported: the organisation's PKCS#12. */
  source: 'development' | 'imported';
}
/** The console warns this many days before the seal certificate expires. */
export const SEAL_EXPIRY_WARNING_DAYS = 30;

/** Kinds of logo taken (checked by content, not by name); at most LOGO_MAX_BYTES. */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];
export const LOGO_MAX_BYTES = 1024 * 1024;

/** The longest response body kept with a webhook delivery (the rest is cut). */
export const DELIVERY_EXCERPT_BYTES = 4096;

/** GET /api/deliveries (filter webhook_id, status) sorts by these; newest first by default. */
export const DELIVERY_SORT_FIELDS = ['id', 'createdAt', 'deliveredAt', 'status', 'event'] as const;

/** Texts of the administration (API answers and console). */
export const AdminMessages = {
  adminOnly: 'Only an organisation administrator can do this.',
  lastAdmin: 'The organisation must keep at least one active administrator.',
  usernameTaken: 'That username is already taken.',
  userNotFound: "No user '{id}'.",
  inviteNeedsEmail: 'An invited user needs an e-mail address for the invitation.',
  invitationSent: 'Invitation sent to {email}.',
  resetSent: 'A link to set a new password was sent to {email}.',
  passwordLinkInvalid: 'This link is not valid any more. Ask your administrator for a new one.',
  passwordTooShort: `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
  passwordTooLong: `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`,
  passwordSet: 'Your password is set. Sign in with it.',
  userDisabled: 'This user is disabled.',
  sealNotPkcs12: 'The file is not a PKCS#12 (.p12 or .pfx) that this password opens.',
  sealNoKey: 'The PKCS#12 holds no private key with its certificate.',
  sealExpired: 'The certificate in the PKCS#12 has expired.',
  sealImported: 'The organisation now seals with "{subject}".',
  sealExpiringSoon: 'The seal certificate expires on {date}: import a new PKCS#12 before then.',
  logoInvalid: 'The logo must be a PNG, JPEG or SVG image of at most 1 MB.',
  logoUnsafeSvg: 'The SVG logo may not contain scripts, event handlers, embedded pages or external references.',
  requestNotCancellable: 'Only a request in progress can be cancelled.',
  requestCancelled: 'Request cancelled.',
  requestNotResealable: 'Only a request whose seal failed can be resealed.',
  resealQueued: 'The seal is queued again.',
  deliveryNotFound: "No delivery '{id}'.",
  redeliveryQueued: 'Delivery queued again.',
  secretRotated: 'A new signing secret is in use; the old one no longer signs deliveries.',
  sealManyKeys: 'The PKCS#12 must hold exactly one private key.',
  sealFileMissing: 'Send the PKCS#12 (.p12 or .pfx) in the field "file".',
  redeliveryWebhookInactive: 'The webhook is disabled: enable it before sending a delivery again.',
} as const;

/**
 * The set-password page's link (`${PUBLIC_URL}/set-password?token=…`), as the invitation and reset e-mails carry it.
 * The page reads `token` from its query and calls GET and POST /consumers/password.
 */
export const setPasswordUrl = (publicUrl: string, token: string): string =>
  `${publicUrl.replace(/\/+$/, '')}${StaffRoutes.setPassword}?token=${encodeURIComponent(token)}`;

/** POST /api/users/{id}/password-link: the link was e-mailed (AdminMessages.invitationSent or resetSent). */
export interface PasswordLinkSent {
  message: string;
  user: StaffUser;
}

/** POST /api/requests/{id}/cancel and /reseal: what was done (AdminMessages) and the request as it is now. */
export interface RequestActionResult {
  message: string;
  request: RequestListItem;
}
