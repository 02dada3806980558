/**
 * The /v1 request shapes of the staff side (spec sections 3 and 7) and the API's own texts for requests, in the
 * specification's style. The console, the CLI and the API all import these.
 */
import type { FieldDefinition, FieldState } from './fields';
import { RECIPIENT_LANGUAGES, type RecipientLanguage } from './languages';
import type { PartyStatus, RequestStatus, SignatureType, SigningMethodCode } from './status';

export const RequestMessages = {
  tooManyRecipients: 'A request can have at most 6 recipients.',
  noRecipients: 'Please add at least one recipient.',
  noSigner: 'At least one recipient must need to sign.',
  nameRequired: 'Please enter the name of every recipient.',
  nameTooLong: 'The name may have at most 200 characters.',
  phoneInvalid: 'Please enter a valid Indian phone number.',
  recipientTypeRequired: 'Please select a recipient type.',
  durationInvalid: 'Reminder duration must be 12, 24 or 48 hours.',
  durationWithoutReminder: 'A reminder duration is sent only when Set Reminder is on.',
  dataInvalid: 'The recipients (data) must be a JSON list.',
  fileRequired: 'Please choose a PDF file to upload.',
  requestNotFound: 'Request not found.',
  // A document link's Range header that no byte of the document satisfies (416).
  rangeNotSatisfiable: 'The requested range is beyond the end of the document.',
  partyNotFound: 'Recipient not found.',
  notADraft: 'This request has already been submitted and can no longer be edited.',
  notInProgress: 'An invite can be resent only to a recipient whose status is in-progress.',
  placementMissing: 'Please place the signature box of every signer and save before submitting.',
  saveDataInvalid: 'Each entry of data needs refId and order of a recipient of the request.',
  saved: 'success',
  processed: 'success',
  deleted: 'Request deleted successfully',
  duplicated: 'Request duplicated successfully',
  inviteSent: 'Invite sent successfully',
  templateNameRequired: 'Please enter a template name.',
  templateNotFound: 'Template not found.',
  clientReferenceInvalid: 'clientReference (or the Idempotency-Key header) must be 1 to 100 characters.',
  formFieldValuesInvalid: 'formFieldValues must be a JSON object.',
  templateAnnotationNotJson: 'template_annotation must be JSON.',
  // The recipient's language (issue 22): a code of RECIPIENT_LANGUAGES, or none (English).
  languageInvalid: `The recipient's language must be one of ${RECIPIENT_LANGUAGES.join(', ')}.`,
} as const;

/** A recipient as the console sends it in the `data` field of /v1/upload. */
export interface RecipientInput {
  name: string;
  email: string;
  phoneNumber: string;
  /** true: receives a copy. The console may send 'Receives a copy' / 'Needs to sign' as recipient_type instead. */
  observer?: boolean | string;
  recipient_type?: string;
  signature_type?: SignatureType | string | null;
  /** The recipient's language (issue 22): their e-mails, SMS and signing page; absent is English. */
  language?: RecipientLanguage;
}

/** Upload result per recipient (spec section 3), plus the keys /v1/save needs back. */
export interface UploadedRecipient {
  refId: number;
  order: number;
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signature_type: SignatureType | null;
  pageNo: number[];
  apply_all: boolean;
  rectangle: string;
  drag_coord: unknown;
  /** The signer's fields beyond the signature box (issue 21), as placed; [] when none. */
  fields?: FieldDefinition[];
}

export interface UploadResponse {
  code: 200;
  refId: number;
  requests: UploadedRecipient[];
  'file-url': string;
  pdfheight: number;
  'total-pages': number;
  /**
   * True when the upload's clientReference (Idempotency-Key) was used before in the organisation: nothing was created,
   * and this is the earlier request (a draft to save and process, or already sent: see status).
   */
  duplicate?: true;
  /** With duplicate: the earlier request's status ('draft' while it can still be saved and processed). */
  status?: RequestStatus | 'deleted';
  clientReference?: string;
}

/** An entry of `data` in /v1/save and /v1/process. */
export interface PlacementInput {
  refId: number | string;
  order: number | string;
  pageNo?: Array<number | string>;
  apply_all?: boolean | string;
  rectangle?: string;
  drag_coord?: unknown;
  /** That signer's fields (issue 21): absent leaves them, [] removes them. */
  fields?: Array<
    Partial<FieldDefinition> & Pick<FieldDefinition, 'kind' | 'page'> & { box: FieldDefinition['box'] | string }
  >;
}

/** A party as the lists show it (spec section 3). */
export interface PartyView {
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signature_type: SignatureType | null;
  status: PartyStatus | 'SAVED';
  orgId: string;
  refId: number;
  order: number;
  uploadUrl: string;
  downloadUrl?: string;
  sign_url: string | null;
  /** The signing method the party used (0 Aadhaar, 1 DSC, 2 e-Signature); null until chosen. */
  sign_method?: SigningMethodCode | null;
  /** When the party was (last) invited and when it first opened its link (ISO 8601; issue 22's request page). */
  invited_at?: string | null;
  opened_at?: string | null;
  /** When the party signed (ISO 8601); null otherwise. */
  signed_at?: string | null;
  /** When the party rejected the document (ISO 8601), and the remark they gave; null otherwise. */
  rejected_at?: string | null;
  remark?: string | null;
  /** The party's fields beyond the signature box and their values (issue 21); only on a party that has some. */
  fields?: FieldState[];
  /** The recipient's language as the sender set it (issue 22); null when not set (English messages). */
  language?: RecipientLanguage | null;
}

/** A request list item (spec section 3). */
export interface RequestListItem {
  id: number;
  refId: number;
  filename: string;
  /** When the request was listed (ISO 8601): its submission; the lists are newest first by it. */
  timestamp: string;
  request_status: RequestStatus;
  status: number;
  'max-status': number;
  status_text: string;
  /** Applying a submitted signature or the final seal failed (the seal job retries); null otherwise. */
  seal_error: string | null;
  /** When the request was submitted and when every party had signed (ISO 8601); null until then. */
  submitted_at?: string | null;
  completed_at?: string | null;
  /**
   * A completed request's verification report (its signatures, levels, timestamps and revocation data), as a page
   * behind a signed link (12 h); absent until the request is completed.
   */
  verification_url?: string | null;
  /**
   * Issue 24: the request's documents were deleted by its organisation's retention period (shown as archived); its
   * audit trail and the documents' hashes are kept. files_deleted_at is when.
   */
  archived?: boolean;
  files_deleted_at?: string | null;
  data: PartyView[];
}

/** A draft record (spec section 3). Only saved drafts are listed (an upload alone is not). */
export interface DraftListItem {
  id: number;
  refId: number;
  filename: string;
  /** The draft's last SAVE (ISO 8601); the lists are newest first by it. */
  timestamp: string;
  data: PartyView[];
}

/** A draft reference record (spec section 3): what the console needs to edit a draft. */
export interface DraftReference {
  refId: number;
  order: number;
  uploadUrl: string;
  filename: string;
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signature_type: SignatureType | null;
  reminder: boolean;
  reminder_duration: number | null;
  checkOrder: boolean;
  otpRequired: boolean;
  pageNo: number[];
  apply_all: boolean;
  rectangle: string | null;
  drag_coord: unknown;
  /** The signer's fields beyond the signature box (issue 21); [] when none. */
  fields?: FieldDefinition[];
  /** The recipient's language as the sender set it (issue 22); null when not set (English). */
  language?: RecipientLanguage | null;
  'total-pages': number;
  pdfheight: number;
}

/**
 * DELETE /api/drafts/{id}/unsaved (the placement's Back): the draft an upload made is discarded unless it was saved
 * or sent; `kept` says which.
 */
export interface UnsavedDraftDiscard {
  id: number;
  kept: boolean;
}
