/**
 * Fields beyond the signature box (issue 21) as the API takes them: placed by the sender (in /v1/save's entries,
 * /v1/upload from a template, a template's own fields, the CLI's --field) and filled by the signer (/v1/fields).
 * Where a field sits on which page of which document is checked against the document (`checkFieldOnPage`), by the API
 * and by the console alike.
 */
import { z } from 'zod';
import {
  FIELD_KINDS,
  FIELD_PATTERNS,
  FieldLimits,
  FieldMessages,
  checkFieldValue,
  fieldLabel,
  fieldPattern,
  fill,
  type FieldDefinition,
  type FieldKind,
} from '../fields';
import { Limits } from '../limits';
import { jsonText, withCode } from './core';

const ID = new RegExp(`^[A-Za-z0-9_-]{1,${FieldLimits.idMaxLength}}$`);
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)$/;

/** A box as [x1, y1, x2, y2] or text 'x1,y1,x2,y2' (points from the displayed page's top-left). */
const boxSchema = z
  .union([z.string(), z.array(z.union([z.number(), z.string()]))], { error: FieldMessages.boxInvalid })
  .transform((value, ctx): [number, number, number, number] => {
    const parts = (typeof value === 'string' ? value.split(',') : value).map((p) =>
      typeof p === 'string' ? p.trim() : p,
    );
    const ok = parts.length === 4 && parts.every((p) => (typeof p === 'number' ? Number.isFinite(p) : NUMBER.test(p)));
    const [x1, y1, x2, y2] = parts.map(Number);
    if (!ok || !(x2 - x1 >= FieldLimits.minBoxPoints) || !(y2 - y1 >= FieldLimits.minBoxPoints) || x1 < 0 || y1 < 0) {
      ctx.addIssue({ code: 'custom', message: FieldMessages.boxInvalid, input: value });
      return z.NEVER;
    }
    const r = (n: number) => Math.round(n * 100) / 100;
    return [r(x1), r(y1), r(x2), r(y2)];
  })
  .meta({
    description: 'x1,y1,x2,y2 in PDF points from the top-left corner of the page as displayed (y grows downward).',
    examples: ['72,640,272,662'],
  });

const optionalText = (max: number, message: string) =>
  z
    .union([z.string(), z.null()], { error: message })
    .optional()
    .transform((v) => (typeof v === 'string' ? v.trim() || null : null))
    .refine((v) => v === null || [...v].length <= max, { error: message });

const optionsSchema = z
  .union([z.string(), z.array(z.union([z.string(), z.number()])), z.null()], {
    error: fill(FieldMessages.optionsRequired, { max: FieldLimits.maxOptions, length: FieldLimits.optionMaxLength }),
  })
  .optional()
  .transform((v): string[] | null => {
    if (v === undefined || v === null) return null;
    const list = typeof v === 'string' ? v.split('|') : v.map(String);
    return list.map((o) => o.replace(/\s+/g, ' ').trim());
  })
  .meta({ description: 'dropdown, radio: the choices, as a list or text a|b|c.' });

const boolish = (fallback: boolean | null) =>
  z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', '']), z.null()], {
      error: 'required and editable must be true or false.',
    })
    .optional()
    .transform((v) => (v === undefined || v === null || v === '' ? fallback : v === true || v === 'true' || v === '1'));

/** One field as a sender places it (signer may be left out where the entry names it: /v1/save's `order`). */
export const fieldInputSchema = z
  .looseObject(
    {
      id: z
        .union([z.string(), z.number()], { error: FieldMessages.idInvalid })
        .optional()
        .transform((v) => (v === undefined ? undefined : String(v).trim()))
        .refine((v) => v === undefined || ID.test(v), FieldMessages.idInvalid)
        .meta({ description: 'Unique in the request (letters, digits, - and _); f1, f2… when left out.' }),
      signer: z
        .union([z.number(), z.string()], { error: FieldMessages.signerInvalid })
        .optional()
        .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
        .refine((v) => v === undefined || (Number.isInteger(v) && v >= 1 && v <= Limits.maxRecipients), {
          error: FieldMessages.signerInvalid,
        })
        .meta({ description: "The signer's order, 1 to 6 (in a template: the role, Signer 1…6)." }),
      kind: z.enum(FIELD_KINDS, { error: FieldMessages.kindInvalid }),
      page: z
        .union([z.number(), z.string()], { error: fill(FieldMessages.pageInvalid, { total: 'its last page' }) })
        .transform((v) => Number(v))
        .refine((v) => Number.isInteger(v) && v >= 1, {
          error: fill(FieldMessages.pageInvalid, { total: 'its last page' }),
        })
        .meta({ description: '1-based page number.' }),
      box: boxSchema,
      required: boolish(null).meta({ description: 'Whether the signer must fill it (true unless a checkbox).' }),
      label: optionalText(FieldLimits.labelMaxLength, FieldMessages.labelTooLong),
      placeholder: optionalText(FieldLimits.placeholderMaxLength, FieldMessages.placeholderTooLong),
      maxLength: z
        .union([z.number(), z.string(), z.null()], { error: FieldMessages.maxLengthInvalid })
        .optional()
        .transform((v) => (v === undefined || v === null || v === '' ? null : Number(v)))
        .refine((v) => v === null || (Number.isInteger(v) && v >= 1 && v <= FieldLimits.textMaxLength), {
          error: FieldMessages.maxLengthInvalid,
        }),
      pattern: z
        .union([z.string(), z.null()], { error: FieldMessages.patternInvalid })
        .optional()
        .transform((v) => (typeof v === 'string' && v.trim() ? v.trim() : null))
        .refine((v) => v === null || fieldPattern(v) !== null, FieldMessages.patternInvalid)
        .meta({
          description: `A regular expression the whole value must match, or one of ${Object.keys(FIELD_PATTERNS).join(', ')}.`,
        }),
      patternMessage: optionalText(FieldLimits.patternMessageMaxLength, FieldMessages.patternInvalid),
      options: optionsSchema,
      editable: boolish(null),
      value: z
        .union([z.string(), z.number(), z.boolean(), z.null()], { error: FieldMessages.valuesInvalid })
        .optional()
        .meta({ description: 'A value filled in before sending (not for signature, date or attachment).' }),
    },
    { error: FieldMessages.fieldsInvalid },
  )
  .transform((f, ctx): Omit<FieldDefinition, 'id' | 'signer'> & { id?: string; signer?: number } => {
    const kind = f.kind as FieldKind;
    let options: string[] | null = null;
    if (kind === 'dropdown' || kind === 'radio') {
      const list = f.options ?? [];
      const ok =
        list.length >= 1 &&
        list.length <= FieldLimits.maxOptions &&
        list.every((o) => o.length >= 1 && [...o].length <= FieldLimits.optionMaxLength) &&
        new Set(list).size === list.length;
      if (!ok) {
        ctx.addIssue({
          code: 'custom',
          message: fill(FieldMessages.optionsRequired, {
            max: FieldLimits.maxOptions,
            length: FieldLimits.optionMaxLength,
          }),
          path: ['options'],
          input: f.options,
        });
        return z.NEVER;
      }
      options = list;
    }
    const definition: Omit<FieldDefinition, 'id' | 'signer'> & { id?: string; signer?: number } = {
      ...(f.id !== undefined ? { id: f.id } : {}),
      ...(f.signer !== undefined ? { signer: f.signer } : {}),
      kind,
      page: f.page,
      box: f.box,
      required: f.required ?? (kind !== 'checkbox' && kind !== 'signature' && kind !== 'date'),
      label: f.label,
      placeholder: f.placeholder,
      maxLength: kind === 'text' ? f.maxLength : null,
      pattern: kind === 'text' ? f.pattern : null,
      patternMessage: kind === 'text' ? f.patternMessage : null,
      options,
      editable: kind === 'name' || kind === 'initials' ? f.editable : null,
      value: null,
    };
    if (f.value !== undefined && f.value !== null && f.value !== '') {
      if (kind === 'signature' || kind === 'date' || kind === 'attachment') {
        ctx.addIssue({
          code: 'custom',
          message: fill(FieldMessages.prefillInvalid, {
            label: fieldLabel(definition),
            reason: fill(FieldMessages.filledBySigning, { label: fieldLabel(definition) }),
          }),
          path: ['value'],
          input: f.value,
        });
        return z.NEVER;
      }
      const checked = checkFieldValue({ ...definition, id: 'x', signer: 1 }, f.value);
      if (!checked.ok) {
        ctx.addIssue({
          code: 'custom',
          message: fill(FieldMessages.prefillInvalid, { label: fieldLabel(definition), reason: checked.message }),
          path: ['value'],
          input: f.value,
        });
        return z.NEVER;
      }
      definition.value = checked.value;
    }
    return definition;
  })
  .meta({
    examples: [
      { signer: 1, kind: 'text', label: 'PAN', page: 1, box: '72,640,272,662', required: true, pattern: 'PAN' },
      { signer: 1, kind: 'initials', page: 1, box: '500,780,560,810' },
      { signer: 2, kind: 'radio', label: 'Plan', page: 2, box: '72,100,272,160', options: ['Basic', 'Premium'] },
    ],
  });

export type FieldInput = z.output<typeof fieldInputSchema>;

/** A list of fields (JSON text in multipart, or a list): at most maxFieldsPerRequest. */
export const fieldListSchema = z
  .union([jsonText(FieldMessages.fieldsInvalid), z.array(z.unknown())], { error: FieldMessages.fieldsInvalid })
  .pipe(
    z
      .array(z.unknown(), { error: FieldMessages.fieldsInvalid })
      .max(FieldLimits.maxFieldsPerRequest, FieldMessages.tooManyFields),
  )
  .pipe(z.array(fieldInputSchema))
  .meta({ description: "Fields beyond the signature box: kind, page, box, required and the kind's options." });

/**
 * Gives every field an id (its own, else f1, f2… not taken) and its signer (its own, else `signerOf`); refuses two
 * fields with one id. Answers the definitions or the message.
 */
export function assignFieldIds(
  fields: FieldInput[],
  signerOf: (field: FieldInput) => number | undefined,
  taken: Iterable<string> = [],
): { ok: true; fields: FieldDefinition[] } | { ok: false; message: string } {
  const used = new Set<string>(taken);
  for (const f of fields) {
    if (f.id === undefined) continue;
    if (used.has(f.id)) return { ok: false, message: fill(FieldMessages.idDuplicate, { id: f.id }) };
    used.add(f.id);
  }
  let next = 1;
  const out: FieldDefinition[] = [];
  for (const f of fields) {
    let id = f.id;
    if (id === undefined) {
      while (used.has(`f${next}`)) next++;
      id = `f${next}`;
      used.add(id);
    }
    const signer = f.signer ?? signerOf(f);
    if (signer === undefined) return { ok: false, message: FieldMessages.signerInvalid };
    out.push({ ...f, id, signer } as FieldDefinition);
  }
  return { ok: true, fields: out };
}

/** A page as a viewer shows it: its width and height in points (crop box, turned by /Rotate). */
export interface ShownPageSize {
  width: number;
  height: number;
}

/** Checks a field lies on a page of the document (null when it does, else the message). */
export function checkFieldOnPage(
  field: Pick<FieldDefinition, 'page' | 'box' | 'label' | 'kind'>,
  pages: (page: number) => ShownPageSize | null,
  totalPages: number,
): string | null {
  if (!Number.isInteger(field.page) || field.page < 1 || field.page > totalPages)
    return fill(FieldMessages.pageInvalid, { total: totalPages });
  const size = pages(field.page);
  if (!size) return fill(FieldMessages.pageInvalid, { total: totalPages });
  const [x1, y1, x2, y2] = field.box;
  const slack = 0.5;
  if (x1 < 0 || y1 < 0 || x2 > size.width + slack || y2 > size.height + slack)
    return fill(FieldMessages.boxOffPage, {
      label: fieldLabel(field),
      page: field.page,
      width: Math.round(size.width),
      height: Math.round(size.height),
    });
  return null;
}

/** POST /v1/fields/{orgId}/{requestId}: `{ values: { fieldId: value } }` (a value of null or '' empties it). */
export const fieldValuesBodySchema = z
  .object(
    {
      values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]), {
        error: FieldMessages.valuesInvalid,
      }),
    },
    { error: FieldMessages.valuesInvalid },
  )
  .meta({ examples: [{ values: { pan: 'ABCDE1234F', agree: true, plan: 'Premium' } }] });

export type FieldValuesInput = z.output<typeof fieldValuesBodySchema>;

/** A field's id in a path (…/{fieldId}/attachment): anything else is no field of the request, a 404. */
export const fieldIdParamSchema = z
  .string()
  .refine((value) => ID.test(value), { error: FieldMessages.idInvalid, params: withCode('NOT_FOUND') })
  .meta({ description: "A field's id.", pattern: ID.source, examples: ['f1'] });

/** POST /v1/fields/{orgId}/{refId}/{order}/{fieldId}/attachment: the file in the multipart part `file`, nothing else. */
export const fieldAttachmentSchema = z
  .object({
    orgId: z.string().optional().meta({ description: "The link's organisation (checked, not needed)." }),
  })
  .meta({ examples: [{}] });
