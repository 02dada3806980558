/** Business constants and limits of the specification (section 9) and DESIGN.md. */
export const Limits = {
  maxRecipients: 6,
  maxFileBytes: 5_242_880,
  pageSizes: [5, 10] as const,
  defaultPageSize: 5,
  reminderHours: [12, 24, 48] as const,
  otpLength: 6,
  otpValiditySeconds: 600,
  otpMaxVerifyAttempts: 5,
  /** A new OTP for the same party no sooner than this. */
  otpResendSeconds: 30,
  /** OTPs one party may request in an hour. */
  otpMaxSendsPerHour: 5,
  /** A signer session (what a verified OTP gives the verifying tab) ends after this long unused... */
  signerSessionIdleSeconds: 1800,
  /** ...and this long after the verification in any case. */
  signerSessionMaxSeconds: 4 * 3600,
  /** Signing attempts per party before 'Count Exceeded' (the Aadhaar hint: do not retry more than 3 times). */
  maxSignAttempts: 3,
  signatureImageMaxBytes: 1_048_576,
  selfieMaxBytes: 1_048_576,
  remarkMaxLength: 1000,
  /** How long the link to the completed document in the completion message works. */
  completedLinkDays: 30,
  videoRecordingMs: 4500,
  /** A liveness recording (decoded from its data: URL); 4.5 s of 640×480 WebM is about 1 to 3 MB. */
  videoMaxBytes: 8_388_608,
  /** A new organisation's live_video_threshold: a blink score must exceed it (0.5 passes a clear blink). */
  defaultLiveVideoThreshold: 0.5,
  /** Liveness videos one party may have analysed (each takes seconds of server time). */
  livenessMaxAttempts: 10,
  toastMs: 3000,
  templateWarningToastMs: 1500,
  inviteSentToastMs: 2000,
  otpRedirectMs: 1000,
  rejectRedirectMs: 2000,
  discrepancyRedirectMs: 2000,
  failedRedirectMs: 5000,
  dscPollMs: 1000,
  inactivityLogoutSeconds: 3600,
  sessionIdleSeconds: 3600,
  sessionMaxSeconds: 12 * 3600,
  pageHeightPoints: 840,
  defaultBoxTop: 790,
  defaultBoxWidth: 150,
  defaultBoxHeight: 50,
  nameSignatureFontPx: 24,
  defaultRequestExpiryDays: 30,
  /** /list (the recipient's own list): OTPs asked from one network address in an hour, whatever the identifier. */
  recipientListOtpsPerIpPerHour: 20,
  /** How long a verified recipient's list token works. */
  recipientListSessionSeconds: 1800,
  /** Rows the recipient's list shows at most (newest first). */
  recipientListMaxRows: 200,
} as const;

/** Hours between reminders (12, 24 or 48). */
export type ReminderHours = (typeof Limits.reminderHours)[number];

/** The signature rectangle the client sends when a box was never dragged (spec section 5). */
export const DEFAULT_RECTANGLE = '0,790,150,840';
