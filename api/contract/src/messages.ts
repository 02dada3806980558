/**
 * Every text of the specification that a user sees or a client maps, typed once.
 * Front ends and the API import these; no specification text is typed anywhere else.
 */
export const Messages = {
  // Login and consumers (spec sections 2, 5, 8)
  loginFieldsEmpty: 'Enter username and password !',
  userDoesNotExist: "User doesn't exist !",
  // The server-side texts the console maps to userDoesNotExist (spec section 8).
  invalidCredentials: 'Invalid authentication credentials',
  cannotConsume: 'You cannot consume this service',
  noApiKey: 'No API key found in request',
  tooManyLoginFailures: 'Too many failed sign-in attempts. Try again later.',
  sessionExpired: 'Your session has expired. Please sign in again.',

  // Routes and pages (spec section 2)
  notFoundPage: "404: The page you are looking for isn't here",
  mailSent: 'Mail sent successfully',
  goToDashboard: 'Go to Dashboard',

  // Dashboard
  initiateContract: 'Initiate Contract',
  testModeTooltip: 'YOU ARE IN TEST MODE',
  liveModeTooltip: 'YOU ARE IN LIVE MODE',
  requestsDetails: 'Requests details',
  notGenerated: 'Not generated',
  resendInvite: 'Resend Invite',
  deleteRow: 'Delete row',
  deleteConfirm: 'Are you sure you want to delete selected row(s) ?',
  duplicateConfirm: 'Are you sure you want to edit this order?',
  duplicating: 'Duplicating selected row(s)',
  deleting: 'Deleting selected row(s)',
  sendingInvite: 'Sending, please wait...',
  inviteSent: 'Invite sent successfully',
  inviteFailed: 'Something went wrong, please try again',
  // What the dashboard says besides the specification's texts (issue 18; same style). `{name}` marks a value.
  noRequestsYet: 'No requests yet',
  duplicatedAs: 'Duplicated as draft {refId}.',
  deletedRows: '{count} row(s) deleted.',
  partyRejectedOn: 'Rejected on {date}',
  partyRemark: 'Remark: {remark}',
  // A completed request's verification report (issue 19): the link in the expanded row, and the report page's title.
  verificationReport: 'Verification report',

  // Drafts
  draftRequests: 'Draft Requests',
  searchPlaceholder: 'Search',
  noRecordsFound: 'No records found.',
  draft: 'Draft',
  editSubmit: 'Edit/Submit',

  // Initiate request
  selectFileUploadType: 'Select file upload type',
  chooseFile: 'Choose File',
  chooseTemplate: 'Choose template',
  enableParallelSigning: 'Enable parallel signing',
  setReminder: 'Set Reminder',
  otpVerificationCheckbox: 'OTP verification (e-signature)',
  addMoreSignatories: 'Add more signatories (Max 6)',
  maximumLimitReached: 'Maxium limit reached',
  proceed: 'PROCEED',
  pleaseWait: 'PLEASE WAIT...',
  fileNoteOnlyPdf: 'Note : only .pdf can be uploaded.',
  fileNoteMaxSize: 'Max file size allowed : 5MB',
  validatingFile: 'Validating the file.. please wait...',
  pickTemplate: 'Pick Template',
  createTemplate: '+ Create Template',
  noTemplatesAvailable: 'No Templates Available',
  pleasePickTemplate: 'Please pick a template.',
  templatesNotFound: 'Templates not found',

  // Placement
  applyAllPages: 'Apply signatures in all pages',
  selectPages: 'Select pages to be signed',
  placementHelpDrag: 'Drag and position the signature box to specify signature location.',
  placementHelpPages: 'Select pages where signature should be present.',
  submitRequest: 'Submit Request',
  // A box never dragged is shown in view, near the top of the page, but what SAVE sends for it is the specification's
  // default place (DEFAULT_RECTANGLE, bottom-left): the screen says so until it is dragged.
  placementNotDragged:
    'Drag the box to where {name} signs. A box that is not dragged goes to the bottom-left corner of the page.',

  // Validation (spec section 5)
  invalidEmail: 'Please enter valid email address.',
  selectSignatureType: 'Please select a signature type',
  selectDuration: 'Please select a duration',
  fillFormDetails: 'Please fill the form(s) details',
  invalidPdf: 'Invalid file format. Only PDF file allowed',
  // The part of the spec's file rule a name like 'my.contract.pdf' breaks (issue 18), said instead of invalidPdf.
  pdfFileNameDots: 'The file name may contain only one dot, before pdf.',
  fileTooLarge: 'File size should be less than 5MB',
  invalidSignatureImage: 'Invalid file format. Only .JPEG .JPG .PNG can be uploaded.',
  emptySignaturePad: 'Please sign below / upload a signature file / add your name.',
  faceVerificationFailed:
    "We couldn't verify your face. Please try again with better lighting and ensure your face is fully visible.",

  // Error catalogue (spec section 8)
  uploadFailed: 'Internal server error. Try again or contact the administrator.',
  connectionFailed: 'Connection failed. Check your network connection & try again.',
  documentCheckFailed: 'Something went wrong. Please try again later',
  requestSaved: 'Request has been successfully saved',
  requestSubmitted: 'Request has been successfully submitted',
  requestSubmitFailed: 'Failed, something went wrong',
  otpSent: 'OTP sent successfully',
  otpResent: 'OTP Resent successfully',
  otpExpired: 'OTP Expired',
  otpInvalid: 'Invalid OTP',
  otpVerified: 'Verified!',
  redirectingToEsign: 'Redirecting to eSign...',
  otpErrorEsignature: 'Something went wrong. Please try again after sometime.',
  locationDenied: 'Please allow access to your location from setting and refresh screen.',
  cameraDenied: 'Please allow access to your camera from setting and refresh screen.',
  aadhaarStartFailed: 'Something went wrong. Please try again.',
  rejectFailed: 'Something went wrong. Please try after sometime.',
  countExceeded: 'Count Exceeded',

  // Placement and templates: labels the specification names (section 2)
  saveButton: 'SAVE',
  backButton: 'Back',
  nextButton: 'Next',
  cancelButton: 'Cancel',
  selectButton: 'Select',
  templateSave: 'Save',
  templateNameColumn: 'Template Name',
  templateIdColumn: 'Template Id',
  pageOfTotal: 'Page {page} /{total}',
  templatesHeading: 'Templates',
  templateEditorHeading: 'Create Template',
  outboxHeading: 'Outbox',
  outboxEmpty: 'No messages yet.',

  // Console chrome: labels the specification names without quoting (spec section 2)
  navDashboard: 'Dashboard',
  navDrafts: 'Drafts',
  initiateRequestHeading: 'Initiate Request',
  placementHeading: 'Placement',
  usernameLabel: 'Username',
  passwordLabel: 'Password',
  loginButton: 'Login',
  signOut: 'Sign out',
  testBadge: 'TEST',
  liveBadge: 'LIVE',
  organisationLogoAlt: 'Organisation logo',

  // Organisation settings (/settings; not in the specification, same style)
  navSettings: 'Settings',
  settingsHeading: 'Settings',
  settingsIdentitySection: 'Identity checks for signers',
  settingsIdentityIntro:
    'What a signer is asked for before signing. Faces and blinks are checked on this server, by models that run offline: no picture or video is sent to another service.',
  settingsFaceCapture: 'Face capture for every signer',
  settingsFaceCaptureHelp:
    'Every signer takes a selfie with the camera before signing, whatever the signing method. The server checks that it shows exactly one face.',
  settingsAadhaarFaceCapture: 'Face capture for Aadhaar eSign',
  settingsAadhaarFaceCaptureHelp: 'The same selfie, asked only of signers who sign with Aadhaar eSign.',
  settingsEsignatureFaceCapture: 'Face capture for electronic signatures',
  settingsEsignatureFaceCaptureHelp: 'The same selfie, asked only of signers who sign with an electronic signature.',
  settingsLiveVideo: 'Liveness video (blink check)',
  settingsLiveVideoHelp:
    'Every signer records a 4.5-second video of their face and blinks. The server measures the blink in the video; signing waits until a video passes.',
  settingsLiveVideoThreshold: 'Liveness threshold',
  settingsLiveVideoThresholdHelp:
    'The server scores the blink in the 4.5-second video from 0 to 1; the score must exceed the threshold. 0.5 (the default) passes a clear blink; higher is stricter.',
  settingsLiveVideoThresholdOff: 'Turn on the liveness video to set its threshold.',
  settingsLocationCapture: 'Location check',
  settingsLocationCaptureHelp:
    "Every signer shares the device's location before signing; the server finds the country from it and keeps it in the request's audit trail.",
  settingsAllowSigningFromIndia: 'Allow signing from inside India',
  settingsAllowSigningFromIndiaHelp:
    'With the location check on: when this is off, signers located in India are refused. Signers outside India can always sign.',
  settingsAllowSigningFromIndiaOff: 'Applies only with the location check on.',
  settingsSave: 'Save',
  settingsSaved: 'Settings saved',
  settingsDscSection: 'Signing with a DSC token',
  settingsDscIntro:
    'Signers who sign with a digital signature certificate on a USB token use the desktop signer app. Step 1 of the signing page links to these.',
  settingsDscDownloadUrl: 'Signer app download link',
  settingsDscDownloadUrlHelp:
    'Where signers download the signer app for Windows. Without it, a signer whose signature type is All is not offered DSC.',
  settingsDscTutorialUrl: 'Tutorial video link',
  settingsDscTutorialUrlHelp: 'A video that shows how to install the signer app and sign with the token (optional).',
  settingsUrlInvalid: 'Enter a full web address starting with https:// (or http://), or leave it empty.',
  settingsSignatureSection: 'Signed documents',
  settingsSignatureIntro:
    'How long the signatures of your documents can be checked: a timestamp proves when each was made, revocation data and an archive timestamp keep them verifiable after the certificates expire.',
  settingsSignatureLevel: 'Signature level',
  settingsSignatureLevelHelp: {
    'B-B': 'B-B: signed only. Checks fail once a signer certificate expires (an Aadhaar certificate lives 30 minutes).',
    'B-T': 'B-T: every signature timestamped: it verifies after its certificate expires, while the timestamp does.',
    'B-LT': 'B-LT: timestamped, with every certificate and its revocation data in the document.',
    'B-LTA': 'B-LTA (recommended): B-LT under an archive timestamp, renewed before it expires: verifiable for decades.',
  } as Record<string, string>,
  settingsTimeSection: 'Dates and times',
  settingsTimeIntro:
    'Every time a person reads (the console, the signing pages, e-mails and the certificate of completion) is written in this time zone, with its label.',
  settingsTimeZone: 'Time zone',
  settingsTimeZoneInvalid: 'Choose a time zone from the list, such as Asia/Kolkata.',
  settingsTimeZoneExample: 'Now: {time}',

  // Generic server answers (not in the specification; same style)
  notFound: 'The requested resource was not found.',
  internalError: 'Something went wrong. Please try again later',
  invalidRequest: 'The request is not valid.',
  // A field of a call that is not what the call takes, where no more specific text applies. `{field}` is its name.
  fieldInvalid: '{field} is not valid.',

  // PDF checks at upload, placement and templates (not in the specification; same style). `{name}` marks a value the
  // server fills in.
  pdfDamaged: 'The PDF file is damaged and cannot be read. Please upload a valid PDF.',
  pdfEncrypted: 'The PDF file is password protected. Remove the password and upload it again.',
  pdfSignedAndDamaged:
    'The PDF file is damaged and already carries digital signatures: repairing it would break them. Please upload an undamaged copy.',
  pdfSignedCannotChange: 'The PDF file already carries digital signatures: changing its form fields would break them.',
  invalidRectangle:
    'The signature box is not valid. Send it as x1,y1,x2,y2 (four numbers, x2 greater than x1 and y2 greater than y1).',
  noPagesSelected: 'Select at least one page to be signed, or apply signatures in all pages.',
  pageOutOfRange: 'Page {page} does not exist in this document, which has {total} page(s).',
  unknownFormField: 'The form has no field named "{name}".',
  formFieldValueInvalid: 'The form field "{name}" cannot take this value: {reason}.',
  invalidTemplateAnnotation: 'The template annotation is not valid: {reason}.',
} as const;

export type MessageKey = keyof typeof Messages;
