/**
 * The few labels the dialogs need that the contract has no text for: accessible names of the dialogs and controls,
 * and the small marks beside a passed check or a countdown. Everything else comes from @esign/contract.
 */
export const DialogTexts = {
  otpTitle: 'OTP verification',
  otpSteps: 'OTP steps',
  padKinds: 'How to sign',
  padCanvas: 'Signature drawing area',
  checksTitle: 'Allow access',
  faceTitle: 'Face capture',
  faceImage: 'Your face capture',
  livenessTitle: 'Face video',
  allowed: 'Allowed',
  /** A countdown beside a button: seconds left. */
  countdown: '({seconds}s)',
} as const;
