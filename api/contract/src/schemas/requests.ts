/**
 * The staff side's requests (spec sections 5 and 7): /v1/upload, /v1/save, /v1/process and the Ref IDs in paths.
 * The output types are what the API's request rules work on (a recipient's phone as +91…, observer as a boolean).
 */
import { z } from 'zod';
import { FieldMessages } from '../fields';
import { RECIPIENT_LANGUAGES, isRecipientLanguage, type RecipientLanguage } from '../languages';
import { Limits } from '../limits';
import { Messages } from '../messages';
import { RequestMessages } from '../requests';
import { RECIPIENT_TYPES, SIGNATURE_TYPES, type SignatureType } from '../status';
import { isEmail, normaliseIndianPhone } from '../validation';
import type { ErrorCode } from '../errors';
import { flag, jsonText, perRecipient, withCode } from './core';
import { listQueryFor } from './lists';

/** A Ref ID as paths and bodies carry it: 1 to 15 digits (a number or its text); null for anything else. */
export function refIdOf(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** A Ref ID in a path (`/v1/deleteRef/{orgId}/{refId}`, `/api/requests/{id}`): anything else is no request, a 404. */
export const refIdParamSchema = z
  .string()
  .refine((value) => refIdOf(value) !== null, {
    error: RequestMessages.requestNotFound,
    params: withCode('NOT_FOUND'),
  })
  .transform((value) => refIdOf(value) as number)
  .meta({ description: 'Ref ID: 1 to 15 digits.', pattern: '^\\d{1,15}$', examples: ['4821930675'] });

/** A signature type as typed (any case): the specification's spelling, or null. */
export function signatureTypeOf(value: unknown): SignatureType | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return SIGNATURE_TYPES.find((t) => t.toLowerCase() === v) ?? null;
}

/** Receives a copy (true), needs to sign (false), or not said (null): recipient_type first, else observer. */
function observerOf(r: { recipient_type?: unknown; observer?: unknown }): boolean | null {
  const type = typeof r.recipient_type === 'string' ? r.recipient_type.trim() : '';
  if (type) {
    if (type === RECIPIENT_TYPES[0]) return false;
    if (type === RECIPIENT_TYPES[1]) return true;
    return null;
  }
  if (r.observer === true || r.observer === 'true') return true;
  if (r.observer === false || r.observer === 'false') return false;
  return null;
}

/** A recipient as the rules take it: the name's spaces collapsed, the phone as +91 and ten digits. */
export interface ValidRecipient {
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signatureType: SignatureType | null;
  /** The recipient's language (issue 22): their e-mails, SMS and signing page; null is English. */
  language: RecipientLanguage | null;
}

/** A recipient's language as sent: a code of RECIPIENT_LANGUAGES (any case), or none (absent, null or ''). */
export function recipientLanguageOf(value: unknown): RecipientLanguage | null | undefined {
  if (value === undefined || value === null || value === '') return null;
  const code = typeof value === 'string' ? value.trim().toLowerCase() : value;
  return isRecipientLanguage(code) ? code : undefined;
}

/**
 * One recipient of /v1/upload (spec section 5): name, a valid e-mail, an Indian mobile number, the recipient type
 * (`recipient_type` 'Needs to sign' / 'Receives a copy', or `observer`) and, for a signer, a signature type. Inside the
 * list each message starts 'Recipient N: '. Whether the signature type is enabled for the organisation is the API's
 * own check (it depends on the organisation).
 */
export const recipientSchema = z
  .object(
    {
      name: z
        .string({ error: perRecipient(RequestMessages.nameRequired) })
        .overwrite((name) => name.trim().replace(/\s+/g, ' '))
        .min(1, { error: perRecipient(RequestMessages.nameRequired) })
        .max(200, { error: perRecipient(RequestMessages.nameTooLong) }),
      email: z
        .string({ error: perRecipient(Messages.invalidEmail) })
        .trim()
        .refine(isEmail, { error: perRecipient(Messages.invalidEmail) }),
      phoneNumber: z
        .union([z.string(), z.number()], { error: perRecipient(RequestMessages.phoneInvalid) })
        .refine((phone) => normaliseIndianPhone(phone) !== null, { error: perRecipient(RequestMessages.phoneInvalid) })
        .transform((phone) => normaliseIndianPhone(phone) as string)
        .meta({ description: 'An Indian mobile number: ten digits from 6 to 9, optionally after +91, 91 or 0.' }),
      // The recipient type and signature type are read as the rules read them (below): a value of another type counts
      // as not given, so these take anything and say what they want.
      recipient_type: z
        .unknown()
        .optional()
        .meta({
          type: 'string',
          enum: [...RECIPIENT_TYPES],
          description: `'${RECIPIENT_TYPES[0]}' or '${RECIPIENT_TYPES[1]}' (or send observer).`,
        }),
      observer: z
        .unknown()
        .optional()
        .meta({
          anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }],
          description: 'true: receives a copy; false: needs to sign.',
        }),
      signature_type: z
        .unknown()
        .optional()
        .meta({
          type: 'string',
          nullable: true,
          description: `A signer's signature type: ${SIGNATURE_TYPES.join(', ')} (any case).`,
        }),
      language: z
        .unknown()
        .optional()
        .refine((value) => recipientLanguageOf(value) !== undefined, {
          error: perRecipient(RequestMessages.languageInvalid),
        })
        .meta({
          type: 'string',
          nullable: true,
          enum: [...RECIPIENT_LANGUAGES],
          description: "The recipient's language (issue 22): their e-mails, SMS and signing page. Absent: English.",
        }),
    },
    { error: perRecipient(Messages.fillFormDetails) },
  )
  .refine((r) => observerOf(r) !== null, { error: perRecipient(RequestMessages.recipientTypeRequired) })
  .refine((r) => observerOf(r) === true || signatureTypeOf(r.signature_type) !== null, {
    error: perRecipient(Messages.selectSignatureType),
  })
  .transform((r): ValidRecipient => ({
    name: r.name,
    email: r.email,
    phoneNumber: r.phoneNumber,
    observer: observerOf(r) as boolean,
    signatureType: observerOf(r) ? null : signatureTypeOf(r.signature_type),
    language: recipientLanguageOf(r.language) ?? null,
  }))
  .meta({
    examples: [
      { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '+91 98765 43210', signature_type: 'e-Signature' },
    ],
  });

/** The recipients of a request: 1 to 6, at least one of them a signer. */
export const recipientListSchema = z
  .array(z.unknown(), { error: RequestMessages.dataInvalid })
  .min(1, RequestMessages.noRecipients)
  .max(Limits.maxRecipients, RequestMessages.tooManyRecipients)
  .pipe(z.array(recipientSchema))
  .refine((list) => list.some((r) => !r.observer), RequestMessages.noSigner);

/** The recipients as multipart sends them (JSON text) or JSON does (a list). */
const recipientsField = z
  .union([jsonText(RequestMessages.dataInvalid), z.array(z.unknown())], { error: RequestMessages.dataInvalid })
  .pipe(recipientListSchema)
  .meta({
    description:
      'The recipients (at most 6), each { name, email, phoneNumber, observer or recipient_type, signature_type }; as JSON text in multipart.',
  });

/** clientReference of /v1/upload (or the Idempotency-Key header): 1 to 100 characters after trimming; null when absent. */
export const clientReferenceSchema = z
  .union([z.string(), z.null()], { error: RequestMessages.clientReferenceInvalid })
  .optional()
  .transform((value, ctx): string | null => {
    if (value === undefined || value === null || value === '') return null;
    const text = value.trim();
    if (!text || text.length > 100) {
      ctx.addIssue({ code: 'custom', message: RequestMessages.clientReferenceInvalid, input: value });
      return z.NEVER;
    }
    return text;
  });

/** formFieldValues of an upload from a template: a JSON object of field name → value (text in multipart). */
const formFieldValuesField = z
  .union([z.literal(''), jsonText(RequestMessages.formFieldValuesInvalid), z.record(z.string(), z.unknown())], {
    error: RequestMessages.formFieldValuesInvalid,
  })
  .optional()
  .pipe(
    z
      .union([z.literal(''), z.record(z.string(), z.unknown())], { error: RequestMessages.formFieldValuesInvalid })
      .optional()
      .transform((values) =>
        values === '' || values === undefined ? null : (values as Record<string, string | boolean>),
      ),
  )
  .meta({ description: "Form field name → value (text or true/false), overriding the template's own values." });

/** fieldValues of an upload from a template: field id → value (JSON text in multipart). */
const fieldValuesField = z
  .union([z.literal(''), jsonText(FieldMessages.valuesInvalid), z.record(z.string(), z.unknown())], {
    error: FieldMessages.valuesInvalid,
  })
  .optional()
  .pipe(
    z
      .union([z.literal(''), z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))], {
        error: FieldMessages.valuesInvalid,
      })
      .optional()
      .transform((values) => (values === '' || values === undefined ? null : values)),
  );

/** What /v1/upload takes, checked as the API checks it. */
export interface UploadInput {
  recipients: ValidRecipient[];
  checkOrder: boolean;
  otpRequired: boolean;
  reminder: boolean;
  reminderDuration: number | null;
  /** The draft edited (its Ref ID kept); null for a new request. */
  refId: number | null;
  clientReference: string | null;
  templateId: string | null;
  formFieldValues: Record<string, string | boolean> | null;
  /** With a template: values for its fields beyond the signature box, by field id (issue 21). */
  fieldValues: Record<string, string | number | boolean | null> | null;
}

/**
 * POST /v1/upload's fields (multipart, beside the PDF in `file`; or JSON with template_id): the recipients, the
 * options (parallel signing is on by default and the console sends checkOrder as its inverse), the reminder, the
 * draft edited and the idempotency reference.
 */
export const uploadSchema = z
  .object({
    data: recipientsField,
    checkOrder: flag('checkOrder', false),
    otpRequired: flag('otpRequired', true),
    reminder: flag('reminder', false),
    // The fields below are checked after those above and in this order (the transform), as the API reads them: the
    // duration only with the reminder on, the client reference only for a new request's idempotency, the form values
    // only with a template.
    reminder_duration: z
      .unknown()
      .optional()
      .meta({
        anyOf: [{ type: 'integer', enum: [...Limits.reminderHours] }, { type: 'string' }],
        description: 'Hours between reminders: 12, 24 or 48; only with reminder on.',
      }),
    refId: z
      .unknown()
      .optional()
      .meta({
        description: "A draft's Ref ID: the draft is edited, keeping its Ref ID.",
        anyOf: [{ type: 'string', pattern: '^\\d{1,15}$' }, { type: 'integer' }],
      }),
    clientReference: z.unknown().optional().meta({
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Idempotency: the same reference again answers the earlier request (duplicate: true).',
    }),
    orgId: z
      .unknown()
      .optional()
      .meta({ type: 'string', description: "The apikey's organisation (checked, not needed)." }),
    template_id: z.unknown().optional().meta({
      type: 'string',
      description: "A template's id instead of a file: its PDF with formFieldValues filled in.",
    }),
    formFieldValues: z
      .unknown()
      .optional()
      .meta({
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
        description:
          "Form field name → value (text or true/false; JSON text in multipart), overriding the template's own values.",
      }),
    fieldValues: z
      .unknown()
      .optional()
      .meta({
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'number' }] },
        description:
          "With template_id: field id → value for the template's fields beyond the signature box (JSON text in multipart), overriding their prefilled values.",
      }),
  })
  .transform((body, ctx): UploadInput => {
    const fail = (message: string, path: string, input: unknown, code?: ErrorCode) => {
      ctx.addIssue({ code: 'custom', message, path: [path], input, ...(code ? { params: withCode(code) } : {}) });
      return z.NEVER;
    };
    let reminderDuration: number | null = null;
    if (body.reminder) {
      const raw = body.reminder_duration;
      if (raw === undefined || raw === null || raw === '')
        return fail(Messages.selectDuration, 'reminder_duration', raw);
      const hours = Number(raw);
      if (!(Limits.reminderHours as readonly number[]).includes(hours))
        return fail(RequestMessages.durationInvalid, 'reminder_duration', raw);
      reminderDuration = hours;
    }
    const editing = body.refId === undefined || body.refId === '' ? null : refIdOf(body.refId);
    if (body.refId !== undefined && body.refId !== '' && editing === null)
      return fail(RequestMessages.requestNotFound, 'refId', body.refId, 'NOT_FOUND');
    const clientReference = clientReferenceSchema.safeParse(body.clientReference);
    if (!clientReference.success)
      return fail(RequestMessages.clientReferenceInvalid, 'clientReference', body.clientReference);
    const templateId = typeof body.template_id === 'string' && body.template_id ? body.template_id : null;
    const formFieldValues = formFieldValuesField.safeParse(body.formFieldValues);
    if (!formFieldValues.success)
      return fail(RequestMessages.formFieldValuesInvalid, 'formFieldValues', body.formFieldValues);
    const fieldValues = fieldValuesField.safeParse(body.fieldValues);
    if (!fieldValues.success) return fail(FieldMessages.valuesInvalid, 'fieldValues', body.fieldValues);
    return {
      fieldValues: fieldValues.data,
      recipients: body.data,
      checkOrder: body.checkOrder,
      otpRequired: body.otpRequired,
      reminder: body.reminder,
      reminderDuration,
      refId: editing,
      clientReference: clientReference.data,
      templateId,
      formFieldValues: formFieldValues.data,
    };
  })
  .meta({
    examples: [
      {
        data: JSON.stringify([
          {
            name: 'Asha Rao',
            email: 'asha@example.in',
            phoneNumber: '9876543210',
            observer: false,
            signature_type: 'e-Signature',
          },
          { name: 'Vikram Shah', email: 'vikram@example.in', phoneNumber: '+91 91234 56789', observer: true },
        ]),
        checkOrder: 'false',
        otpRequired: 'true',
        reminder: 'true',
        reminder_duration: '24',
        orgId: 'acme',
        clientReference: 'invoice-2026-0042',
      },
    ],
  });

/** Page numbers as the placement sends them: a list, or text '1,2,3'; each must be a whole number. */
export const pageListSchema = z.unknown().transform((value, ctx): number[] => {
  const list: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  const pages: number[] = [];
  for (const v of list) {
    const n = Number(typeof v === 'string' ? v.trim() : v);
    if (!Number.isInteger(n)) {
      ctx.addIssue({ code: 'custom', message: `pageNo must list page numbers; '${String(v)}' is not one.`, input: v });
      return z.NEVER;
    }
    pages.push(n);
  }
  return pages;
});

/** One entry of `data` in /v1/save and /v1/process: a recipient of a request, and where their box goes. */
export interface PlacementEntry {
  refId: number;
  order: number;
  /** Checked for each signer when it is applied (observers are skipped): see pageListSchema. */
  pageNo?: unknown;
  apply_all?: unknown;
  rectangle?: unknown;
  drag_coord?: unknown;
  /** That signer's fields beyond the signature box (issue 21): absent leaves them as they were, [] removes them. */
  fields?: unknown;
}

const placementEntrySchema = z
  .looseObject(
    {
      refId: z
        .unknown()
        .refine((value) => refIdOf(value) !== null, RequestMessages.saveDataInvalid)
        .meta({ description: 'The Ref ID of the request.', anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      order: z
        .unknown()
        .refine((value) => Number.isInteger(Number(value)), RequestMessages.saveDataInvalid)
        .meta({ description: "The recipient's order, 1 to 6.", anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      pageNo: z.unknown().optional().meta({ description: 'Pages to sign: a list of page numbers, or text 1,2,3.' }),
      apply_all: z.unknown().optional().meta({ description: 'true: the box goes on every page.' }),
      rectangle: z
        .unknown()
        .optional()
        .meta({ description: 'The box as text x1,y1,x2,y2 in points from the top-left (default 0,790,150,840).' }),
      drag_coord: z.unknown().optional().meta({ description: "The console's own record of the drag, kept as sent." }),
      fields: z.unknown().optional().meta({
        type: 'array',
        description:
          "That signer's fields (issue 21): { id?, kind, page, box: 'x1,y1,x2,y2' (points from the displayed page's top-left), required?, label?, placeholder?, maxLength?, pattern?, patternMessage?, options?, editable?, value? }. Absent: unchanged; []: none.",
      }),
    },
    { error: RequestMessages.saveDataInvalid },
  )
  .transform((e): PlacementEntry => ({ ...e, refId: refIdOf(e.refId) as number, order: Number(e.order) }));

/** `data` of /v1/save and /v1/process: a list of entries (one entry alone, or JSON text of either, is taken too). */
export const placementsSchema = z
  .union([jsonText(RequestMessages.saveDataInvalid), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: RequestMessages.saveDataInvalid,
  })
  .transform((value) => (value && typeof value === 'object' && !Array.isArray(value) ? [value] : value))
  .pipe(z.array(z.unknown(), { error: RequestMessages.saveDataInvalid }).min(1, RequestMessages.saveDataInvalid))
  .pipe(z.array(placementEntrySchema));

export type PlacementsInput = z.output<typeof placementsSchema>;

/** POST /v1/save and POST /v1/process: `{ data, orgId }`. */
export const placementsBodySchema = z
  .object({
    data: placementsSchema,
    orgId: z.string().optional().meta({ description: "The apikey's organisation (checked, not needed)." }),
  })
  .meta({
    examples: [
      {
        data: [
          { refId: 4821930675, order: 1, pageNo: [1], apply_all: false, rectangle: '72,640,222,690', drag_coord: null },
        ],
        orgId: 'acme',
      },
    ],
  });

/** GET /v1/resend_invite/{orgId}/{refId}/{order}. */
export const resendParamsSchema = z.object({ orgId: z.string(), refId: refIdParamSchema, order: z.string() });

/** POST /v1/onboard/checkDocument: the PDF in the multipart part `file`; no other field is needed. */
export const documentCheckSchema = z
  .object({
    orgId: z.string().optional().meta({ description: "The apikey's organisation (checked, not needed)." }),
  })
  .meta({ examples: [{ orgId: 'acme' }] });

/** The most rows /v1/request_all and /v1/drafts answer at once. */
export const V1_LIST_LIMIT = 500;

/**
 * ?limit=&offset= of the specification's own lists (GET /v1/request_all/{orgId}, /v1/drafts/{orgId}): read as they
 * always were, never refused (a missing or unreadable value is the default: offset 0, limit 500 at most).
 */
export const v1ListQuerySchema = z
  .object({
    limit: z
      .unknown()
      .optional()
      .meta({ type: 'integer', minimum: 1, maximum: 500, description: 'Rows at most (500 when not given).' }),
    offset: z.unknown().optional().meta({ type: 'integer', minimum: 0, description: 'Rows to skip (0).' }),
  })
  .transform(({ limit, offset }) => ({
    offset: Math.max(0, Number(offset) || 0),
    limit: Math.min(V1_LIST_LIMIT, Math.max(1, Number(limit) || V1_LIST_LIMIT)),
  }));

/** What GET /api/requests and /api/drafts sort by (newest first by default). */
export const REQUEST_LIST_SORT_FIELDS = ['timestamp', 'createdAt', 'id', 'refId', 'filename'] as const;

/** GET /api/requests and /api/drafts: five rows unless asked; `q` (or its older name `search`) a Ref ID's digits or a file name's text. */
export const requestListQuerySchema = listQueryFor({
  sortable: REQUEST_LIST_SORT_FIELDS,
  sort: ['timestamp', 'DESC'],
  range: [0, 4],
  filters: { q: 'text', search: 'text' },
});
export type RequestListQueryParams = z.output<typeof requestListQuerySchema>;

/** A recipient's order in a path (`/v1/resend_invite/{orgId}/{refId}/{order}`): anything but a whole number from 1 is no recipient (404). */
export const partyOrderParamSchema = z
  .string()
  .transform((value) => Number(value))
  .refine((order) => Number.isInteger(order) && order >= 1, {
    error: RequestMessages.partyNotFound,
    params: withCode('NOT_FOUND'),
  })
  .meta({ description: "The recipient's order, 1 to 6.", examples: ['2'] });
