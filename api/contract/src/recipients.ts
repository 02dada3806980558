/**
 * The recipient side of the /v1 contract (spec sections 3, 4 and 7): what the signer app sends and reads, and the
 * API's own texts for it in the specification's style. Every call carries the party's link token in `x-sign-token`
 * (or `?token=`).
 */
import type { FilledField } from './fields';
import { RECIPIENT_LANGUAGES, type RecipientLanguage } from './languages';
import type { PartyStatus, RequestStatus, SigningMethodCode } from './status';

export const RecipientMessages = {
  invalidLink: 'This signing link is not valid. Please open the latest link sent to you.',
  notYourTurn: 'It is not your turn to sign yet. You will receive an e-mail when it is.',
  alreadySigned: 'You have already signed this document.',
  acceptFirst: 'Please accept the document before signing.',
  otpFirst: 'Please verify the OTP sent to you before signing.',
  otpSessionRequired: 'Please verify the OTP sent to you on this device to continue.',
  otpAlreadyUsed: 'This OTP has already been used. Please request a new OTP.',
  methodNotAllowed: 'This signing method is not allowed for this document.',
  methodInvalid: 'Please select a signing method: 0 (Aadhaar), 1 (DSC) or 2 (e-Signature).',
  requestCompleted: 'This document has already been signed by every party.',
  requestRejected: 'This document has been rejected and can no longer be signed.',
  requestExpired: 'The signature request has expired.',
  requestCancelled: 'Your eSign request has been cancelled.',
  notASigner: 'You receive a copy of this document; there is nothing to sign.',
  remarkRequired: 'Please provide a remark to Reject this document.',
  remarkTooLong: 'The remark can be at most 1000 characters.',
  rejected: 'You have rejected the agreement',
  otpNotRequested: 'Please request an OTP first.',
  otpResendWait: 'Please wait {seconds} seconds before requesting a new OTP.',
  otpTooManySends: 'Too many OTPs were requested. Please try again in an hour.',
  otpTooManyAttempts: 'Too many wrong OTPs. Please request a new OTP.',
  otpFormat: 'The OTP is 6 digits.',
  otpNotNeeded: 'No OTP is needed for this document.',
  // The signing page's language sent with sendotp (issue 22): the SMS and e-mail of the code are in it.
  languageInvalid: `lang must be one of ${RECIPIENT_LANGUAGES.join(', ')}.`,
  detailsInvalid: 'The signer details are not valid: {reason}.',
  usbTokenPassword: 'Enter the USB token password.',
  sendEmailInvalid: 'send_email must be true or false.',
  failureTextInvalid: 'errorCode and errorMessage must be text.',
  statusInvalid: "status must be 'opened' or 'signing'.",
  locationInvalid: 'latitude must be a number from -90 to 90 and longitude one from -180 to 180.',
  locationNeeded: 'Please allow access to your location from setting and refresh screen.',
  locationBlocked:
    'eSign is not allowed from your current location ({country}). Please contact the sender of the document.',
  faceNeeded: 'Please capture your face before signing.',
  selfieInvalid: 'The face capture must be a PNG or JPEG image of at most 1 MB.',
  noFace: 'No face detected. Please re-capture.',
  manyFaces: 'More than one face is in the picture. Please re-capture with only your face.',
  livenessNeeded: 'Please record the face video before signing.',
  livenessFailed:
    "We couldn't verify your face. Please try again with better lighting and ensure your face is fully visible.",
  livenessNotAsked: 'This organisation does not ask for a face video.',
  videoInvalid: 'The face video must be a WebM or MP4 recording (a data: URL) of at most 8 MB.',
  videoUnreadable: 'The face video could not be read. Please record it again.',
  livenessTooMany: 'Too many face videos were sent. Please contact the sender of the document.',
  signatureTooLarge: 'The signature image must be smaller than 1MB.',
  signatureKindInvalid: "The signature must be 'drawn', 'typed' or 'uploaded'.",
  signatureStyleInvalid: "The typed signature style must be 'normal' or 'italic'.",
  nothingToRetry: 'There is no failed attempt to retry.',
  retryFirst: 'Your last signing attempt failed. Please use Retry Signing first.',
  retryAllowed: 'success',
  failureRecorded: 'Failure recorded',
  sealPending: 'Your signature is being applied to the document.',
  sealFailed: 'Applying the signatures to the document failed; it is being retried.',
  signed: 'success',
  detailsSaved: 'success',
} as const;

/**
 * The recipient screens' texts (spec sections 2, 4, 5 and 8), typed once. `{name}` marks a value the page fills in.
 * Texts the specification describes without quoting are written in its style and marked so.
 */
export const SignerTexts = {
  troubleViewing: 'Facing trouble viewing the document? Click here',
  pageOfTotal: 'Page {page}/{total}',
  previous: 'Previous',
  next: 'Next',
  nameLabel: 'Name',
  emailLabel: 'Email',
  phoneLabel: 'Phone no.',
  acceptPrompt: 'Accept the document to proceed to eSign.',
  accept: 'Accept',
  reject: 'Reject',
  yes: 'Yes',
  no: 'No',
  cancel: 'Cancel',
  acceptConfirm: "Are you sure you want to 'Accept' this document ?",
  rejectConfirm: "Are you sure you want to 'Reject' this document ?",
  remarkLabel: 'Remark (required)',
  remarkNote: 'Please provide a remark to Reject this document.',
  accepted: 'You have accepted the document.',
  selectMethod: 'Select signing method',
  methodAadhaar: 'Aadhaar',
  methodDsc: 'DSC',
  methodESignature: 'e-Signature',
  confirmDetails:
    'I verify that the above present email id and/or Phone number are correct and can be used for communication regarding my eSign.',
  // Described, not quoted, by the specification:
  aadhaarPhoneNote:
    'Keep your mobile phone with you: the Aadhaar OTP is sent to the phone number linked to your Aadhaar.',
  aadhaarHint:
    'On the next screen, tick the checkbox at the top. The OTP can take up to 3 mins to arrive. Do not retry more than 3 times, or the transaction is cancelled automatically.',
  dscSteps: [
    'Download the signer app for Windows, install it, or watch the tutorial video.',
    'Log in to the signer app with the same email or phone number as in this eSign.',
    'Keep the signer app open.',
    'Enter your USB token password below and proceed.',
  ],
  dscDownload: 'Download the signer app',
  dscTutorial: 'Watch the tutorial video',
  // The signing page's context (issue 18, point 10), in the specification's style:
  documentLabel: 'Document',
  sentByLabel: 'Sent by',
  goToMyBox: 'Go to my signature box',
  myBoxLabel: 'Your signature box',
  verifyToView: 'Verify the OTP sent to you to view the document.',
  verifyOtpButton: 'Verify OTP',
  checksToContinue: 'The identity checks are needed before you sign.',
  continueChecks: 'Continue',
  dscPasswordPlaceholder: 'USB token password',
  showPassword: 'Show password',
  hidePassword: 'Hide password',
  proceed: 'Proceed to eSign',
  instructionsNext: 'Next',
  instructionsBack: 'Back',
  proceedToEsign: 'Proceed to esign',
  checkingLocation: 'Checking access to your location.',
  checkingCamera: 'Checking access to your camera.',
  capture: 'Capture',
  recapture: 'Recapture',
  faceCaptured: 'Face capture successfull.',
  noFace: 'No face detected. Please re-capture.',
  faceError: 'Oops! Something went wrong. Refresh the screen & try again.',
  faceProcessing: 'Processing... Please wait..',
  startRecording: 'Start Recording',
  recording: 'Recording...',
  rerecord: 'Re-record',
  processingVideo: 'Processing your video...',
  analysingVideo: 'Please wait while we analyze your face video. This may take a few moments.',
  otpRequestStep: 'Request OTP',
  otpVerifyStep: 'Verify OTP',
  otpPlaceholder: 'ENTER OTP',
  getOtp: 'GET OTP',
  verify: 'VERIFY',
  resendOtp: 'Resend OTP',
  close: 'Close',
  // An OTP was sent and is still valid (a reload, another tab): its code can be entered without a new one.
  otpHaveCode: 'Enter the code already sent',
  padTitle: 'Add your signature',
  padDraw: 'Draw',
  padType: 'Type',
  padUpload: 'Upload',
  padNormal: 'Normal',
  padItalic: 'Italic',
  clear: 'Clear',
  submit: 'Submit',
  exit: 'Exit',
  rejectedTitle: 'You have rejected the agreement',
  closeWindow: 'You can close this window.',
  statusCompleted: 'This document has been already signed successfully on {date}.',
  statusSigning: 'Signing has failed, Please wait for a Reinitiate eSign request on your email.',
  statusExpired: 'The signature request has expired.',
  statusRejected: 'You have rejected this document.',
  statusCancelled: 'Your eSign request has been cancelled.',
  supportLine: 'For assistance, contact support with Ref. ID and Request ID.',
  processing: 'Processing...',
  successTitle: 'eSign successfully completed',
  dontClose: "Please don't close this window or go back.",
  esignRejected: 'eSign rejected',
  failedTitle: 'Your attempt to {signType} based Esign has failed!',
  retrySigning: 'Retry Signing',
  failureReason: 'Failure Reason: {errorCode}. {errorMessage}',
  refAndRequest: 'Ref. ID {refId} Request ID {requestId}',
  attemptsExhausted: 'Your maximum attempts for esigning are exhausted! Please contact the administrator.',
  redirecting: 'Redirecting...',
  downloadSigned: 'Download the signed document',
  holdOnTitle: 'Hold on',
} as const;

/** Where a signer's image comes from on the signature pad (spec: drawing, typed name, uploaded image). */
export const SIGNATURE_KINDS = ['drawn', 'typed', 'uploaded'] as const;
export type SignatureKind = (typeof SIGNATURE_KINDS)[number];
export const SIGNATURE_STYLES = ['normal', 'italic'] as const;
export type SignatureStyle = (typeof SIGNATURE_STYLES)[number];

/** The specification's original_signature_type values (section 3): the staff's type, 'Dual' written 'dual'. */
export type OriginalSignatureType = 'Aadhaar' | 'DSC' | 'e-Signature' | 'dual' | 'All';

/** esignStatus (spec section 2, status pages): set once the party can no longer act on the link. */
export type EsignStatus = 'completed' | 'signing' | 'expired' | 'rejected' | 'cancelled';

/** 'true' / 'false' as the specification's flags are strings. */
export type FlagText = 'true' | 'false';

/** The signing request as the recipient sees it (spec section 3, "Signing request (recipient side)"). */
export interface SigningRequest {
  name: string;
  email: string;
  phoneNumber: string;
  /** The document as it stands (earlier signers' stamps included); null until the OTP is verified when required. */
  uploadUrl: string | null;
  /** The party's status. */
  status: PartyStatus;
  request_status: RequestStatus;
  otpRequired: boolean;
  /** Whether the party has proved who they are for this link (OTP verified, or no OTP needed). */
  auth: boolean;
  auth_type: 'otp' | 'link';
  refId: number;
  refIds: number[];
  /** The party's signing id: /success, /failed and the signing calls name it. */
  requestId: string;
  orgId: string;
  orderNo: number;
  live_video: FlagText;
  live_video_threshold: number;
  face_capture: FlagText;
  location_capture: FlagText;
  aadhaar_face_capture: FlagText;
  esignature_face_capture: FlagText;
  /** The request asks for OTP verification. */
  otp_verification: FlagText;
  /** OTP verification is still to be done by this party. */
  otpVerificationRequired: FlagText;
  /** The method chosen (0 Aadhaar, 1 DSC, 2 e-Signature), null before the choice. */
  signature_type: SigningMethodCode | null;
  original_signature_type: OriginalSignatureType | null;
  /** Method codes this party may use (spec section 4, step 4). */
  signing_methods: SigningMethodCode[];
  accepted: boolean;
  esignStatus: EsignStatus | null;
  esignedDate: string | null;
  updated_timestamp: string;
  timestamp: string | null;
  total_pages: number;
  rectangle: string | null;
  /** A location restriction's remark (spec: shown as the page content). */
  remark: string | null;
  /** Applying the signature to the document failed and is being retried. */
  seal_error: string | null;
  dsc_download_url: string | null;
  /** The DSC panel's tutorial video (step 1 links to it), when the organisation set one. */
  dsc_tutorial_url: string | null;
  return_url: string | null;
  /** The document's file name, once the document is shown to this browser. */
  document_name: string | null;
  /** The organisation that sent the request. */
  organisation_name: string;
  /** This signer's boxes on the document's pages, once the document is shown (PDF points of the real page). */
  boxes: SignerBox[] | null;
  /** The organisation's time zone: every time on the signer's pages is written in it. */
  time_zone: string;
  /**
   * An OTP already sent to this party and still usable, while this browser has not verified: the dialog opens at
   * 'Verify OTP' after a reload, and the resend wait continues from the server's time.
   */
  otp: PendingOtp | null;
  /** The identity checks this party has passed (the server's record): a reload asks only for the rest. */
  checks: { location: boolean; face: boolean; liveness: boolean };
  /**
   * The language the sender set for this recipient (issue 22), null when none: the page opens in it unless the
   * recipient chose another on the page.
   */
  language: RecipientLanguage | null;
}

/** A box of the signer on the document: the pages as runs ('1-3,7') and the box in PDF user space (y upward). */
export interface SignerBox {
  pages: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PendingOtp {
  /** The OTP's id (POST /v1/verifyotp/{userId}). */
  userId: string;
  /** Seconds before another OTP can be requested (0: now). */
  resend_after: number;
  /** Seconds before this OTP expires. */
  expires_in: number;
}

/** The pages of a runs text ('1-3,7' → [1, 2, 3, 7]), at most `total` (bad parts are skipped). */
export function pagesOfRuns(runs: string, total: number): number[] {
  const pages = new Set<number>();
  for (const part of runs.split(',')) {
    const match = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/.exec(part);
    if (!match) continue;
    const first = Number(match[1]);
    const last = Math.min(match[2] === undefined ? first : Number(match[2]), total);
    for (let page = Math.max(first, 1); page <= last; page++) pages.add(page);
  }
  return [...pages].sort((a, b) => a - b);
}

export interface ReferenceResponse {
  code: 200;
  request: SigningRequest;
  total_pages: number;
}

export interface SendOtpResponse {
  code: 200;
  message: string;
  /** The OTP's id: POST /v1/verifyotp/{userId}. */
  userId: string;
  /** Seconds before another OTP can be requested. */
  resend_after: number;
  expires_in: number;
}

export interface VerifyOtpResponse {
  code: 200;
  verify: boolean;
  expired: boolean;
  message: string;
  attempts_left: number;
  /**
   * With verify: the signer session for this browser tab (send it as x-signer-session with every recipient call).
   * Only the verifying call gets it; another device verifies again.
   */
  session_token?: string;
  /** Seconds of inactivity after which the session ends. */
  session_idle_seconds?: number;
}

export interface LocationResponse {
  code: 200;
  allow_signing_from_india: boolean;
  remark: string | null;
  country: string | null;
  in_india: boolean;
}

/**
 * POST /v1/liveness: the blink check's answer, in the shape of the third-party service the specification names
 * (code 200 or 400; data.liveliness_score.value). `passed` is the server's decision against the organisation's
 * threshold; signing is refused until a video passed.
 */
export interface LivenessResponse {
  code: 200 | 400;
  message: string;
  passed: boolean;
  data: {
    liveliness_score: { value: number };
    threshold: number;
    blinks: number;
    frames: number;
    frames_with_face: number;
  };
}

export interface InitResponse {
  code: 200;
  message: string;
  requestId: string;
  method: SigningMethodCode;
  name: string;
}

export interface SigningStatusResponse {
  code: 200;
  status: PartyStatus;
  /** The method chosen (0 Aadhaar, 1 DSC, 2 e-Signature), null before the choice. */
  signature_type: SigningMethodCode | null;
  refId: number;
  orderNo: number;
  request_status: RequestStatus;
  esignStatus: EsignStatus | null;
  signed: boolean;
  seal_error: string | null;
}

export interface ReturnUrlResponse {
  code: 200;
  message: string;
  return_url: string | null;
  download_url?: string | null;
  /** The verification report of the signed document (a page behind a signed link), once the document is signed. */
  verification_url?: string | null;
  /** The values filled by the parties whose signatures the signed document carries (issue 21); only when there are some. */
  fields?: FilledField[];
}

export interface FailedResponse {
  code: 200;
  message: string;
  errorCode: string;
  errorMessage: string;
  requestId: string;
  refId: number;
  signatureType: SigningMethodCode | null;
  order: number;
  return_url: string | null;
  attempts_left: number;
}

export interface RetryResponse {
  code: 200;
  message: string;
  order: number;
  requestId: string;
  attempt: number;
}
