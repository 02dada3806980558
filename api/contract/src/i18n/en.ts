/**
 * The English catalogue of the recipient's side (issue 22): every text of the signer app and of the recipient's
 * e-mails and SMS. The specification's texts are taken from the contract's constants (SignerTexts, Messages,
 * RecipientMessages, FieldMessages), never typed again; the texts the specification does not give (the app's own
 * labels, the e-mails) are typed here once. Every other language's catalogue has exactly these keys and, in each
 * text, exactly these `{placeholders}` (typecheck and api/test/i18n-catalogues.test.ts).
 */
import { FIELD_KIND_LABELS, FIELD_PATTERNS, FieldMessages } from '../fields';
import { Messages } from '../messages';
import { RecipientMessages, SignerTexts } from '../recipients';

/** The chosen entries of a text table, typed by their keys. */
function pick<T extends object, K extends keyof T>(table: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, table[key]])) as Pick<T, K>;
}

/** How long an OTP is valid, in the e-mails' and SMS's words (DESIGN.md section 3: 10 minutes). */
export const OTP_VALIDITY_TEXT = 'valid for 10 minutes';

const { dscSteps, ...signerTexts } = SignerTexts;

export const en = {
  /** The signing page, its dialogs, the result and status pages. */
  page: {
    ...signerTexts,
    dscStep1: dscSteps[0],
    dscStep2: dscSteps[1],
    dscStep3: dscSteps[2],
    dscStep4: dscSteps[3],
    // The app's own labels (not in the specification): accessible names of the dialogs and controls, the marks
    // beside a passed check or a countdown, and the face steps' live hints.
    otpTitle: 'OTP verification',
    otpSteps: 'OTP steps',
    padKinds: 'How to sign',
    padCanvas: 'Signature drawing area',
    checksTitle: 'Allow access',
    faceTitle: 'Face capture',
    faceImage: 'Your face capture',
    livenessTitle: 'Face video',
    allowed: 'Allowed',
    faceInView: 'Face in view',
    noFaceInView: 'No face in view',
    manyFacesInView: 'More than one face in view',
    blinkPrompt: 'Please blink once while recording',
    blinkDetected: 'Blink detected',
    noBlinkSeen: 'No blink seen. Re-record and blink once.',
    /** A countdown beside a button: seconds left. */
    countdown: '({seconds}s)',
    /** The language switch on every page (its options are each language's own name, LANGUAGE_NAMES). */
    language: 'Language',
    /** The text alternative of a drawn page of the document. */
    pageImage: 'Page {page} of {total}',
    warningImage: 'Warning',
  },
  /** The specification's messages the recipient sees (spec sections 5 and 8). */
  messages: pick(Messages, [
    'pleaseWait',
    'internalError',
    'otpSent',
    'otpResent',
    'otpExpired',
    'otpInvalid',
    'otpVerified',
    'redirectingToEsign',
    'otpErrorEsignature',
    'locationDenied',
    'cameraDenied',
    'aadhaarStartFailed',
    'rejectFailed',
    'invalidSignatureImage',
    'emptySignaturePad',
    'faceVerificationFailed',
    'organisationLogoAlt',
    'mailSent',
    'notFoundPage',
  ]),
  /**
   * The API's answers a recipient can read on the page (hold-on page, popups, toasts): the signer app shows the
   * catalogue's text for the English one the API sends (the checks of what the app itself never sends wrong stay out).
   */
  server: pick(RecipientMessages, [
    'invalidLink',
    'notYourTurn',
    'alreadySigned',
    'acceptFirst',
    'otpFirst',
    'otpSessionRequired',
    'otpAlreadyUsed',
    'methodNotAllowed',
    'requestCompleted',
    'requestRejected',
    'requestExpired',
    'requestCancelled',
    'notASigner',
    'remarkRequired',
    'remarkTooLong',
    'otpNotRequested',
    'otpResendWait',
    'otpTooManySends',
    'otpTooManyAttempts',
    'otpFormat',
    'otpNotNeeded',
    'usbTokenPassword',
    'locationBlocked',
    'faceNeeded',
    'selfieInvalid',
    'manyFaces',
    'livenessNeeded',
    'livenessNotAsked',
    'videoInvalid',
    'videoUnreadable',
    'livenessTooMany',
    'signatureTooLarge',
    'nothingToRetry',
    'retryFirst',
    'sealPending',
    'sealFailed',
  ]),
  /** The fields step (issue 21): the checks' messages, the kinds' names, the named patterns' messages, the bar. */
  fields: {
    ...pick(FieldMessages, [
      'required',
      'tooLong',
      'notANumber',
      'notAnOption',
      'checkboxValue',
      'patternMismatch',
      'notEditable',
      'notYours',
      'unknownField',
      'filledBySigning',
      'alreadySigned',
      'attachmentRequired',
      'attachmentTooLarge',
      'attachmentType',
      'attachmentNotAField',
      'requiredMissing',
      'saved',
    ]),
    kindSignature: FIELD_KIND_LABELS.signature,
    kindInitials: FIELD_KIND_LABELS.initials,
    kindName: FIELD_KIND_LABELS.name,
    kindDate: FIELD_KIND_LABELS.date,
    kindText: FIELD_KIND_LABELS.text,
    kindNumber: FIELD_KIND_LABELS.number,
    kindCheckbox: FIELD_KIND_LABELS.checkbox,
    kindDropdown: FIELD_KIND_LABELS.dropdown,
    kindRadio: FIELD_KIND_LABELS.radio,
    kindAttachment: FIELD_KIND_LABELS.attachment,
    patternPAN: FIELD_PATTERNS.PAN.message,
    patternPIN: FIELD_PATTERNS.PIN.message,
    patternIFSC: FIELD_PATTERNS.IFSC.message,
    patternGSTIN: FIELD_PATTERNS.GSTIN.message,
    panel: 'Your fields',
    nextField: 'Next field',
    previousField: 'Previous field',
    /** n: required fields still empty; m: all required fields of this signer. */
    requiredLeft: '{n} of {m} required fields left',
    filledWhenSigning: 'Filled when you sign',
    choose: 'Choose…',
    removeAttachment: 'Remove',
    /** The accessible name of a field's box on the page. */
    boxLabel: '{label} (field on page {page})',
  },
  /**
   * The recipient's e-mails and SMS (api/src/modules/notifications/templates.ts builds them). `{file}` is the
   * document's name, `{org}` the organisation's, `{link}` a personal link; an SMS is fitted into 160 characters by
   * shortening the file name, trying the wordings of a message from the longest (…1) to the shortest.
   */
  mail: {
    greeting: 'Hello {name},',
    footerVia: '{org}, via e-Sign',
    orOpenLink: 'Or open this link:',
    remark: 'Remark: {remark}',
    noRemark: 'No remark was given.',
    /** Who asks: a staff user of the organisation, in a subject and in a sentence. */
    senderAndOrg: '{sender} ({org})',
    senderOfOrg: '{sender} of {org}',
    invitationSubject: '{from} sent you "{file}" to sign',
    invitationHeading: 'Please sign "{file}"',
    invitationBody: '{from} has sent you "{file}" to review and sign.',
    reminderSubject: 'Reminder: {from} is waiting for your signature on "{file}"',
    reminderHeading: 'Reminder: please sign "{file}"',
    reminderBody: 'Reminder: {from} is still waiting for your signature on "{file}".',
    reviewAndSign: 'Review and sign the document',
    personalLink: 'This link is personal: anyone who has it can sign as you. Do not forward this e-mail.',
    expiresOn: 'The request expires on {date}.',
    /** Before a reminder's SMS. */
    smsReminder: 'Reminder: ',
    smsInvitation1: '{org}: please sign "{file}". Personal link, do not share: {link}',
    smsInvitation2: '{org}: sign "{file}" (personal link): {link}',
    smsInvitation3: 'Sign "{file}": {link}',
    otpSubject: 'Your verification code for "{file}"',
    otpHeading: 'Your verification code',
    otpIntro: 'Your one-time password to sign "{file}" is:',
    otpValidity: `It is ${OTP_VALIDITY_TEXT}. Never share it: {org} will never ask you for it.`,
    otpIgnore: 'If you did not ask for this code, ignore this message.',
    smsOtp: `{code} is your OTP to sign "{file}" ({org}). It is ${OTP_VALIDITY_TEXT}. Do not share it.`,
    completedSubject: 'Completed: "{file}" is signed by all parties',
    completedHeading: '"{file}" is signed',
    completedBody: 'Every party has signed "{file}". The signed document is ready.',
    downloadSigned: SignerTexts.downloadSigned,
    smsCompleted1: '{org}: "{file}" is signed by all parties. Download: {link}',
    smsCompleted2: '"{file}" is signed. Download: {link}',
    rejectedSubject: 'Rejected: "{file}" was rejected by {name}',
    rejectedHeading: '"{file}" was rejected',
    rejectedBody: '{name} rejected "{file}" on {date}. The signature request is closed.',
    smsRejected: '{org}: "{file}" was rejected by {name} on {date}.',
    failedSubject: 'Signing failed: "{file}"',
    failedHeading: 'Signing "{file}" failed',
    failedBody: 'Signing "{file}" failed: {reason}',
    failedWait: 'Please wait for a new signature request by e-mail.',
    smsFailed: '{org}: signing "{file}" failed. Please wait for a new request.',
    expiredSubject: 'Expired: the signature request for "{file}"',
    expiredHeading: 'The signature request has expired',
    expiredBody: 'The signature request for "{file}" has expired and can no longer be signed.',
    smsExpired: '{org}: the signature request for "{file}" has expired.',
    cancelledSubject: 'Cancelled: the signature request for "{file}"',
    cancelledHeading: 'The signature request was cancelled',
    cancelledBody: '{org} cancelled the signature request for "{file}". It can no longer be signed.',
    cancelledReason: 'Reason: {reason}',
    smsCancelled: '{org}: the signature request for "{file}" was cancelled.',
  },
} as const;
