/**
 * The few labels the dialogs need that the contract has no text for: accessible names of the dialogs and controls,
 * the small marks beside a passed check or a countdown, and the face steps' live hints. Everything else comes from
 * @esign/contract.
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
  /** Live feedback of the face steps (the browser's face models; the server decides). */
  faceInView: 'Face in view',
  noFaceInView: 'No face in view',
  manyFacesInView: 'More than one face in view',
  blinkPrompt: 'Please blink once while recording',
  blinkDetected: 'Blink detected',
  noBlinkSeen: 'No blink seen. Re-record and blink once.',
  /** A countdown beside a button: seconds left. */
  countdown: '({seconds}s)',
} as const;
