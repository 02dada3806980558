/**
 * The recipient calls (spec section 7): what the signer app sends on the signing page. Each schema's output is what
 * the API's recipient service works on.
 */
import { z } from 'zod';
import { RECIPIENT_LANGUAGES, isRecipientLanguage, type RecipientLanguage } from '../languages';
import { Limits } from '../limits';
import { Messages } from '../messages';
import {
  RecipientMessages,
  SIGNATURE_KINDS,
  SIGNATURE_STYLES,
  type SignatureKind,
  type SignatureStyle,
} from '../recipients';
import { SigningMethod, type SigningMethodCode } from '../status';
import { cleanText, withCode } from './core';

/** A coordinate as a number or its text, within ±limit; null for anything else. */
export function coordinateOf(value: unknown, limit: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

const detailsInvalid = (reason: string) => RecipientMessages.detailsInvalid.replace('{reason}', reason);

const coordinate = (limit: number) =>
  z
    .union([z.number(), z.string()], { error: RecipientMessages.locationInvalid })
    .refine((value) => coordinateOf(value, limit) !== null, RecipientMessages.locationInvalid)
    .transform((value) => coordinateOf(value, limit) as number);

/** The status a signer-details call moves the party to: opened (default) or signing (accepted). */
export const signerStatusSchema = z
  .enum(['opened', 'signing'], { error: RecipientMessages.statusInvalid })
  .optional()
  .transform((status) => status ?? 'opened');

/** What POST /v1/signer_details gives the API: the status, the position (both or neither), the device, a selfie. */
export interface SignerDetails {
  status: 'opened' | 'signing';
  position: { lat: number; long: number } | null;
  /** The signer app's { OS, Browser } or text; the API falls back to the User-Agent header. */
  userAgent: { OS?: string; Browser?: string } | string | null;
  /** A data: URL (PNG or JPEG) from the webcam, or null. */
  selfie: string | null;
}

/** POST /v1/signer_details/{orgId}/{refId}/{orderNo}: the signer details payload (spec section 3). */
export const signerDetailsSchema = z
  .object({
    status: signerStatusSchema,
    IP: z
      .string({ error: detailsInvalid('IP must be text') })
      .optional()
      .meta({ description: "The signer's public address as the app saw it (not trusted)." }),
    geoLocation: z
      .object(
        {
          lat: coordinate(90).optional(),
          long: coordinate(180).optional(),
        },
        { error: RecipientMessages.locationInvalid },
      )
      .nullish()
      .transform((geo, ctx) => {
        if (!geo || (geo.lat === undefined && geo.long === undefined)) return null;
        if (geo.lat === undefined || geo.long === undefined) {
          ctx.addIssue({ code: 'custom', message: RecipientMessages.locationInvalid, input: geo });
          return z.NEVER;
        }
        return { lat: geo.lat, long: geo.long };
      }),
    userAgent: z
      .union([z.string(), z.object({ OS: z.string().optional(), Browser: z.string().optional() })], {
        error: detailsInvalid('userAgent must be text or { OS, Browser } as text'),
      })
      .nullish()
      .transform((ua) => ua ?? null),
    selfie: z
      .unknown()
      .refine((value) => value === undefined || value === null || typeof value === 'string', {
        error: RecipientMessages.selfieInvalid,
        params: withCode('UNSUPPORTED_MEDIA_TYPE'),
      })
      .optional()
      .transform((value) => (typeof value === 'string' && value !== '' ? value : null))
      .meta({ type: 'string', description: 'A data: URL (PNG or JPEG) of the face capture.', nullable: true }),
  })
  .transform((body): SignerDetails => ({
    status: body.status,
    position: body.geoLocation,
    userAgent: body.userAgent,
    selfie: body.selfie,
  }))
  .meta({
    examples: [
      {
        status: 'signing',
        IP: '203.0.113.7',
        geoLocation: { lat: 19.076, long: 72.8777 },
        userAgent: { OS: 'Android 14', Browser: 'Chrome 131' },
      },
    ],
  });

/** What the signer app sends to POST /v1/signer_details (the schema's input). */
export type SignerDetailsInput = z.input<typeof signerDetailsSchema>;

/** POST /v1/get_location: { latitude, longitude, orgId }. */
export const locationSchema = z
  .object({
    latitude: coordinate(90),
    longitude: coordinate(180),
    orgId: z.string({ error: detailsInvalid('orgId must be text') }).optional(),
  })
  .meta({ examples: [{ latitude: 19.076, longitude: 72.8777, orgId: 'acme' }] });

/** The OTP of the signing page: six digits (a number is read as its digits, padded). */
export const signerOtpSchema = z
  .union([z.string(), z.number()], { error: RecipientMessages.otpFormat })
  .transform((otp) => (typeof otp === 'number' ? String(otp).padStart(Limits.otpLength, '0') : otp).trim())
  .refine((otp) => /^\d{6}$/.test(otp), RecipientMessages.otpFormat);

/** POST /v1/verifyotp/{userId}: { otp }. */
export const verifyOtpSchema = z.object({ otp: signerOtpSchema }).meta({ examples: [{ otp: '493817' }] });

/** The token password for the signer's desktop agent (never stored or logged). */
export const usbTokenSchema = z
  .string({ error: RecipientMessages.usbTokenPassword })
  .refine((pin) => pin.length >= 1 && pin.length <= 64, {
    error: RecipientMessages.usbTokenPassword,
    params: withCode('SIGNING_REFUSED'),
  });

/** POST /v1/dscToken/{orgId}/{requestId}: { usb_token }. */
export const dscTokenSchema = z
  .object({
    usb_token: z
      .unknown()
      .refine((pin) => typeof pin === 'string', {
        error: RecipientMessages.usbTokenPassword,
        params: withCode('SIGNING_REFUSED'),
      })
      .pipe(usbTokenSchema)
      .meta({ type: 'string', minLength: 1, maxLength: 64 }),
  })
  .meta({ examples: [{ usb_token: '12345678' }] });

/** The liveness recording's data: URL prefix (data:video/…;base64,). */
export const VIDEO_DATA_URL = /^data:video\/[\w.+-]+(;[^,]*)?;base64,/i;

/** POST /v1/liveness/{orgId}/{requestId}: { video_file }, the 4.5 s recording as a data: URL (WebM or MP4). */
export const livenessSchema = z
  .object({
    video_file: z
      .unknown()
      .refine((v) => typeof v === 'string' && VIDEO_DATA_URL.test(v.slice(0, 201)), {
        error: RecipientMessages.videoInvalid,
        params: withCode('UNSUPPORTED_MEDIA_TYPE'),
      })
      .refine(
        (v) => typeof v !== 'string' || v.length - v.indexOf(',') - 1 <= Math.ceil((Limits.videoMaxBytes * 4) / 3) + 8,
        { error: RecipientMessages.videoInvalid, params: withCode('PAYLOAD_TOO_LARGE') },
      )
      .transform((v) => v as string)
      .meta({ type: 'string', description: 'data:video/webm;base64,… (at most 8 MB decoded).' }),
  })
  .meta({ examples: [{ video_file: 'data:video/webm;base64,GkXfo59ChoEBQveBAULygQRC84EIQoKEd2VibUKHgQRChYEC' }] });

/** The signing method of GET /v1/init (?method=): 0 Aadhaar, 1 DSC, 2 e-Signature; Aadhaar when absent. */
export function signingMethodOf(value: unknown): SigningMethodCode | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d$/.test(value.trim()) ? +value : NaN;
  return (Object.values(SigningMethod) as number[]).includes(n) ? (n as SigningMethodCode) : null;
}

/** GET /v1/init/{orgId}/{requestId}?method=N (and the link token as ?token= when not in the header). */
export const initQuerySchema = z.object({
  method: z
    .unknown()
    .optional()
    .refine((m) => m === undefined || signingMethodOf(m) !== null, RecipientMessages.methodInvalid)
    .transform((m): SigningMethodCode =>
      m === undefined ? SigningMethod.Aadhaar : (signingMethodOf(m) as SigningMethodCode),
    )
    .meta({ type: 'string', enum: ['0', '1', '2'], description: '0 Aadhaar (default), 1 DSC, 2 e-Signature.' }),
  token: z.string().optional().meta({ description: "The party's link token, when not sent as x-sign-token." }),
});

/**
 * GET /v1/sendotp/{orgId}/{refId}/{order}?lang=: the signing page's language (issue 22), in which the SMS and the
 * e-mail of the code are written; absent: the party's language (else English).
 */
export const sendOtpQuerySchema = z.object({
  lang: z
    .unknown()
    .optional()
    .refine((lang) => lang === undefined || isRecipientLanguage(lang), RecipientMessages.languageInvalid)
    .transform((lang) => (lang === undefined ? null : (lang as RecipientLanguage)))
    .meta({
      type: 'string',
      enum: [...RECIPIENT_LANGUAGES],
      description: "The signing page's language: the code's SMS and e-mail are written in it.",
    }),
  token: z.string().optional().meta({ description: "The party's link token, when not sent as x-sign-token." }),
});

/** What the signature pad submits (besides a multipart image in `file`). */
export interface SignatureFields {
  /** drawn, typed or uploaded; null: taken from what was sent (an uploaded file's name, else drawn). */
  kind: SignatureKind | null;
  style: SignatureStyle;
  /** The image as a data: URL (the JSON form of `file`), or null. */
  dataUrl: string | null;
}

/** POST /v1/esignature/{orgId}/{requestId}: kind, style and the image (multipart file, or `file` as a data: URL). */
export const esignatureSchema = z
  .object({
    kind: z
      .union([z.enum(SIGNATURE_KINDS), z.literal('')], { error: RecipientMessages.signatureKindInvalid })
      .optional()
      .transform((kind) => (kind === undefined || kind === '' ? null : kind)),
    style: z
      .union([z.enum(SIGNATURE_STYLES), z.literal('')], { error: RecipientMessages.signatureStyleInvalid })
      .optional()
      .transform((style): SignatureStyle => (style === undefined || style === '' ? 'normal' : style)),
    file: z
      .string({ error: Messages.emptySignaturePad })
      .optional()
      .transform((file) => (file === undefined || file === '' ? null : file))
      .meta({ description: 'The image as a data: URL (PNG or JPEG), or a multipart file part.' }),
  })
  .transform((body): SignatureFields => ({ kind: body.kind, style: body.style, dataUrl: body.file }))
  .meta({ examples: [{ kind: 'typed', style: 'italic' }] });

/** The reject remark: required, at most 1000 characters after trimming. */
export const remarkSchema = z
  .string({ error: RecipientMessages.remarkRequired })
  .trim()
  .min(1, RecipientMessages.remarkRequired)
  .max(Limits.remarkMaxLength, RecipientMessages.remarkTooLong);

/** POST /v1/esign/reject/{orgId}/{refId}/{orderNo}: { remark }. */
export const rejectSchema = z
  .object({ remark: remarkSchema })
  .meta({ examples: [{ remark: 'The amount on page 2 is wrong.' }] });

/** What the failed page reports. */
export interface FailedReport {
  sendEmail: boolean;
  errorCode: string | null;
  errorMessage: string | null;
}

/** POST /v1/failed/{orgId}/{requestId}: { send_email, errorCode, errorMessage } (send_email false: no message). */
export const failedSchema = z
  .object({
    send_email: z
      .union([z.boolean(), z.enum(['true', 'false'])], { error: RecipientMessages.sendEmailInvalid })
      .optional(),
    errorCode: z.string({ error: RecipientMessages.failureTextInvalid }).nullish(),
    errorMessage: z.string({ error: RecipientMessages.failureTextInvalid }).nullish(),
  })
  .transform((body): FailedReport => ({
    sendEmail: !(body.send_email === false || body.send_email === 'false'),
    errorCode: cleanText(body.errorCode, 32),
    errorMessage: cleanText(body.errorMessage, 500),
  }))
  .meta({ examples: [{ send_email: true, errorCode: 'ESP-944', errorMessage: 'The OTP was not entered in time.' }] });
