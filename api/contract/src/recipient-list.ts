/**
 * /list: the recipient's own list (issue 18, point 13; the specification leaves the route's purpose open). A recipient
 * gives the e-mail address or Indian phone number their requests were sent to, receives an OTP there, and sees the
 * requests addressed to them across organisations with a link to sign those they may still act on.
 *
 * Calls (public: no apikey, no link token):
 * - POST /v1/recipient/login `{ identifier }` → RecipientLoginResponse. The same answer whether or not anything was
 *   sent to the address; the OTP goes only to an address that has requests.
 * - POST /v1/recipient/verify `{ id, otp }` → RecipientVerifyResponse: a short-lived list token.
 * - GET /v1/recipient/requests with `Authorization: Bearer <token>` → RecipientListResponse.
 */
import type { PartyStatus, RequestStatus } from './status';
import { isEmail, normaliseIndianPhone } from './validation';

export const RecipientListMessages = {
  identifierInvalid: 'Please enter a valid email address or Indian phone number.',
  otpSent: 'If any signing request was sent to this address, an OTP was sent there. It is valid for 10 minutes.',
  resendWait: 'Please wait {seconds} seconds before requesting a new OTP.',
  tooManySends: 'Too many OTPs were requested for this address. Please try again in an hour.',
  tooManyFromNetwork: 'Too many OTPs were requested from your network. Please try again later.',
  loginUnknown: 'Please request an OTP first.',
  otpFormat: 'The OTP is 6 digits.',
  tooManyAttempts: 'Too many wrong OTPs. Please request a new OTP.',
  sessionInvalid: 'Your session has ended. Please verify your address again.',
} as const;

/** What /list shows. */
export const RecipientListTexts = {
  heading: 'My signing requests',
  intro:
    'Enter the e-mail address or the Indian mobile number your signing requests were sent to. We will send a one-time password (OTP) there.',
  identifierLabel: 'E-mail address or phone number',
  getOtp: 'GET OTP',
  otpLabel: 'OTP',
  otpPlaceholder: 'ENTER OTP',
  verify: 'VERIFY',
  resend: 'Resend OTP',
  resendIn: 'Resend OTP in {seconds} s',
  changeIdentifier: 'Use another address',
  signedInAs: 'Requests sent to {identifier}',
  empty: 'No signing requests were sent to this address.',
  columnDocument: 'Document',
  columnOrganisation: 'Organisation',
  columnSent: 'Sent',
  columnStatus: 'Status',
  columnAction: 'Action',
  signLink: 'Review and sign',
  done: 'Done',
  refId: 'Ref. ID {refId}',
} as const;

/** The recipient's view of a party's state, by party status (and the request's, when someone else ended it). */
export const RecipientListStatus = {
  waitingTurn: 'Not your turn yet',
  copyPending: 'You will receive a copy when everyone has signed',
  toSign: 'Waiting for your signature',
  opened: 'Opened, not signed yet',
  signing: 'Accepted, not signed yet',
  failed: 'Signing failed: you can try again',
  signed: 'Signed',
  completed: 'Completed',
  rejectedByYou: 'Rejected by you',
  rejectedByOther: 'Rejected by another party',
  expired: 'Expired',
  cancelled: 'Cancelled',
} as const;

export interface RecipientLoginResponse {
  code: 200;
  /** Send it back with the OTP. */
  id: string;
  message: string;
  /** Seconds before another OTP may be asked for this address. */
  resend_after: number;
  /** Seconds the OTP is valid. */
  expires_in: number;
}

export interface RecipientVerifyResponse {
  code: 200;
  /** The list token: `Authorization: Bearer <token>` on GET /v1/recipient/requests. */
  token: string;
  expires_at: string;
}

/** One request addressed to the recipient. */
export interface RecipientListItem {
  ref_id: number;
  order: number;
  filename: string;
  organisation: string;
  /** When the request was sent (ISO 8601), and the organisation's time zone to show it in. */
  sent_at: string | null;
  time_zone: string;
  role: 'signer' | 'copy';
  status: PartyStatus;
  request_status: RequestStatus;
  /** The party's own sign link (the invitation's), while they may still act; null otherwise. */
  sign_url: string | null;
}

export interface RecipientListResponse {
  code: 200;
  /** The address the list is for, as normalised (a lower-case e-mail, or +91 and 10 digits). */
  identifier: string;
  expires_at: string;
  requests: RecipientListItem[];
}

/**
 * The address a recipient logs in with, as parties are matched: a lower-case e-mail, or an Indian number as +91 and 10
 * digits (as /v1/upload stores phone numbers); null when it is neither.
 */
export function normaliseRecipientIdentifier(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text.includes('@')) return isEmail(text) ? text.toLowerCase() : null;
  return normaliseIndianPhone(text);
}

/** What the recipient's list says about a row. */
export function recipientListStatus(
  item: Pick<RecipientListItem, 'role' | 'status' | 'request_status'>,
): (typeof RecipientListStatus)[keyof typeof RecipientListStatus] {
  const s = RecipientListStatus;
  switch (item.status) {
    case 'waiting':
      return item.role === 'copy' ? s.copyPending : s.waitingTurn;
    case 'saved':
    case 'in-progress':
      return s.toSign;
    case 'opened':
      return s.opened;
    case 'signing':
      return s.signing;
    case 'failed':
      return s.failed;
    case 'completed':
      return item.role === 'copy' ? s.completed : s.signed;
    case 'rejected':
      return s.rejectedByYou;
    case 'expired':
      return s.expired;
    case 'cancelled':
      return item.request_status === 'rejected' ? s.rejectedByOther : s.cancelled;
  }
}
