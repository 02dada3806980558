/** The desktop signer agent's login (POST /v1/dsc/agent/login and /verify). */
import { z } from 'zod';

export const DscMessages = {
  identifier: 'Enter the e-mail address or the phone number the signing request was sent to.',
  sent: 'If a signing request is waiting for you, an OTP was sent there.',
  wait: 'Please wait 30 seconds before asking for another OTP.',
  otpInvalid: 'Invalid OTP',
  otpExpired: 'OTP Expired',
  tooMany: 'Too many wrong OTPs. Ask for a new one.',
} as const;

/** A lower-case e-mail, or an Indian mobile as +91 and 10 digits; null when it is neither. */
export function dscIdentifierOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254) return text.toLowerCase();
  const digits = text.replace(/[\s()-]/g, '').replace(/^\+?91/, '');
  return /^[6-9]\d{9}$/.test(digits) ? `+91${digits}` : null;
}

/** POST /v1/dsc/agent/login: { identifier }, the e-mail or phone a signing request was sent to. */
export const dscLoginSchema = z
  .object({
    identifier: z
      .unknown()
      .refine((value) => dscIdentifierOf(value) !== null, DscMessages.identifier)
      .transform((value) => dscIdentifierOf(value) as string)
      .meta({ type: 'string', description: 'An e-mail address or an Indian mobile number.' }),
  })
  .meta({ examples: [{ identifier: 'asha@example.in' }] });

/** POST /v1/dsc/agent/verify: { loginId, otp }. */
export const dscVerifySchema = z
  .object({
    loginId: z
      .string({ error: DscMessages.otpInvalid })
      .regex(/^[0-9a-f-]{36}$/, DscMessages.otpInvalid)
      .meta({ description: 'The loginId the login answered.' }),
    otp: z
      .string({ error: DscMessages.otpInvalid })
      .trim()
      .regex(/^\d{6}$/, DscMessages.otpInvalid),
  })
  .meta({ examples: [{ loginId: '0b9f2c1e-5d4a-4c7b-9e1f-3a2b1c0d9e8f', otp: '493817' }] });
