/** /list, the recipient's own list: POST /v1/recipient/login and /verify. */
import { z } from 'zod';
import { normaliseRecipientIdentifier, RecipientListMessages } from '../recipient-list';

/** An e-mail address or an Indian phone number, normalised (lower case, +91…). */
export const recipientIdentifierSchema = z
  .unknown()
  .refine((value) => normaliseRecipientIdentifier(value) !== null, RecipientListMessages.identifierInvalid)
  .transform((value) => normaliseRecipientIdentifier(value) as string)
  .meta({ type: 'string', description: 'The e-mail address or Indian phone number the requests were sent to.' });

/** POST /v1/recipient/login: { identifier }. */
export const recipientLoginSchema = z
  .object({ identifier: recipientIdentifierSchema })
  .meta({ examples: [{ identifier: 'asha@example.in' }] });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The OTP of /list: six digits (a number is read as its digits). */
export const recipientOtpSchema = z
  .union([z.string(), z.number()], { error: RecipientListMessages.otpFormat })
  .transform((otp) => (typeof otp === 'number' ? String(otp) : otp.trim()))
  .refine((otp) => /^\d{6}$/.test(otp), RecipientListMessages.otpFormat);

/** POST /v1/recipient/verify: { id, otp } (the OTP is checked first). */
export const recipientVerifySchema = z
  .object({
    otp: recipientOtpSchema,
    id: z
      .string({ error: RecipientListMessages.loginUnknown })
      .transform((id) => id.trim().toLowerCase())
      .refine((id) => UUID.test(id), RecipientListMessages.loginUnknown)
      .meta({ description: 'The id the login answered.' }),
  })
  .meta({ examples: [{ otp: '493817', id: '0b9f2c1e-5d4a-4c7b-9e1f-3a2b1c0d9e8f' }] });
