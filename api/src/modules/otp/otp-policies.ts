import { Limits } from '@esign/contract';

/**
 * What an OTP is for. Each purpose has its own rows (`otps.purpose`), its own HMAC key and its own numbers: a code
 * sent for one is never accepted for another.
 * - `signing`: a party before signing (GET /v1/sendotp, POST /v1/verifyotp); the subject is the party's id.
 * - `dsc-login`: the desktop signer agent's login (POST /v1/dsc/agent/login, verify); the subject is the address.
 * - `recipient-list`: a /list login (POST /v1/recipient/login, verify); the subject is the address.
 * The sandbox ESP keeps its own (it stands in for UIDAI, whose OTPs are not ours).
 */
export type OtpPurpose = 'signing' | 'dsc-login' | 'recipient-list';

export interface OtpPolicy {
  /**
   * The `app_secrets` key the code's HMAC is made with. Each purpose kept the key it had before the codes shared a
   * table, so a code sent before an upgrade still verifies after it.
   */
  secret: string;
  validitySeconds: number;
  /** Wrong guesses allowed; each is counted before the code is compared. */
  maxAttempts: number;
  /** A new code for the same subject no sooner than this after the last one. */
  resendSeconds: number;
  /** At most this many codes an hour per subject; null: no hourly limit. */
  maxSendsPerHour: number | null;
  /** A newer code for the same subject replaces the older one, which then answers as expired. */
  newestOnly: boolean;
}

export const OTP_POLICIES: Readonly<Record<OtpPurpose, Readonly<OtpPolicy>>> = {
  signing: {
    secret: 'otp',
    validitySeconds: Limits.otpValiditySeconds,
    maxAttempts: Limits.otpMaxVerifyAttempts,
    resendSeconds: Limits.otpResendSeconds,
    maxSendsPerHour: Limits.otpMaxSendsPerHour,
    newestOnly: true,
  },
  'dsc-login': {
    secret: 'dsc-agent-otp',
    validitySeconds: Limits.otpValiditySeconds,
    maxAttempts: Limits.otpMaxVerifyAttempts,
    resendSeconds: Limits.otpResendSeconds,
    maxSendsPerHour: null,
    newestOnly: false,
  },
  'recipient-list': {
    secret: 'recipient-list-otp',
    validitySeconds: Limits.otpValiditySeconds,
    maxAttempts: Limits.otpMaxVerifyAttempts,
    resendSeconds: Limits.otpResendSeconds,
    maxSendsPerHour: Limits.otpMaxSendsPerHour,
    newestOnly: true,
  },
};
