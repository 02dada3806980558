/**
 * Fields beyond the signature box (issue 21): what a sender places for each signer and the signer fills, from
 * placement to the sealed PDF. The kinds, their limits and every message live here, so the API, the console, the
 * signer app and the CLI check a value with the same rule and refuse it with the same words.
 *
 * A field belongs to one signer (its order, 1 to 6), sits on one page, in a box of that page given in PDF points from
 * the page's top-left corner as a viewer shows it (its crop box, turned by its /Rotate; y grows downward): the
 * coordinates `pdftotext -bbox` reports. The box must lie on the page.
 */
import { formatDate } from './dates';

export const FIELD_KINDS = [
  'signature',
  'initials',
  'name',
  'date',
  'text',
  'number',
  'checkbox',
  'dropdown',
  'radio',
  'attachment',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

/** How each kind is called in the console's palette and the signer app. */
export const FIELD_KIND_LABELS: Record<FieldKind, string> = {
  signature: 'Signature',
  initials: 'Initials',
  name: 'Name',
  date: 'Date signed',
  text: 'Text',
  number: 'Number',
  checkbox: 'Checkbox',
  dropdown: 'Dropdown',
  radio: 'Radio group',
  attachment: 'Attachment',
};

/** Kinds the signer fills (the others are filled for them: the signature by signing, the date when they sign). */
export const FILLED_KINDS: readonly FieldKind[] = [
  'initials',
  'name',
  'text',
  'number',
  'checkbox',
  'dropdown',
  'radio',
  'attachment',
];

/** Kinds whose value is one of the field's options. */
export const CHOICE_KINDS: readonly FieldKind[] = ['dropdown', 'radio'];

/** The attachment types taken, checked by their content (as the document upload is). */
export const ATTACHMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const FieldLimits = {
  /** Fields in one request (all signers), beside the signature boxes. */
  maxFieldsPerRequest: 500,
  idMaxLength: 40,
  labelMaxLength: 100,
  placeholderMaxLength: 100,
  /** A text value at most (a field may set a lower maxLength). */
  textMaxLength: 1000,
  /** A text field's maxLength when none is set. */
  defaultTextMaxLength: 200,
  initialsMaxLength: 6,
  nameMaxLength: 200,
  numberMaxLength: 30,
  patternMaxLength: 200,
  patternMessageMaxLength: 200,
  maxOptions: 30,
  optionMaxLength: 100,
  attachmentMaxBytes: 5_242_880,
  attachmentNameMaxLength: 200,
  /** The smallest box a field may have, in points. */
  minBoxPoints: 4,
} as const;

/** Patterns a sender picks by name; a field may also carry its own. */
export const FIELD_PATTERNS = {
  PAN: {
    pattern: '^[A-Z]{5}[0-9]{4}[A-Z]$',
    message: 'Enter a valid PAN (5 letters, 4 digits, 1 letter), e.g. ABCDE1234F.',
  },
  PIN: { pattern: '^[1-9][0-9]{5}$', message: 'Enter a valid 6-digit PIN code.' },
  IFSC: { pattern: '^[A-Z]{4}0[A-Z0-9]{6}$', message: 'Enter a valid IFSC, e.g. SBIN0001234.' },
  GSTIN: {
    pattern: '^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$',
    message: 'Enter a valid GSTIN, e.g. 27ABCDE1234F1Z5.',
  },
} as const;

export const FieldMessages = {
  fieldsInvalid: 'fields must be a list of fields, each with a signer, a kind, a page and a box.',
  tooManyFields: `A request can have at most ${FieldLimits.maxFieldsPerRequest} fields.`,
  kindInvalid: `A field's kind must be one of ${FIELD_KINDS.join(', ')}.`,
  idInvalid: `A field's id must be 1 to ${FieldLimits.idMaxLength} letters, digits, '-' or '_'.`,
  idDuplicate: 'Two fields have the same id: {id}.',
  signerInvalid: "A field's signer must be the order (1 to 6) of a recipient who needs to sign.",
  pageInvalid: "A field's page must be a page of the document (1 to {total}).",
  boxInvalid: "A field's box must be x1,y1,x2,y2 in points with x1 < x2 and y1 < y2.",
  boxOffPage:
    'The field {label} does not fit on page {page}: its box must lie inside the page ({width} × {height} points).',
  labelTooLong: `A field's label may have at most ${FieldLimits.labelMaxLength} characters.`,
  placeholderTooLong: `A field's placeholder may have at most ${FieldLimits.placeholderMaxLength} characters.`,
  maxLengthInvalid: `A text field's maxLength must be a whole number from 1 to ${FieldLimits.textMaxLength}.`,
  patternInvalid: "A field's pattern must be a valid regular expression (or PAN, PIN, IFSC, GSTIN).",
  optionsRequired: 'A dropdown or radio group needs 1 to {max} options, each 1 to {length} characters, all different.',
  prefillInvalid: 'The prefilled value of {label} is not valid: {reason}',
  required: '{label} is required.',
  tooLong: '{label} may have at most {max} characters.',
  notANumber: '{label} must be a number.',
  notAnOption: '{label} must be one of its options.',
  checkboxValue: '{label} must be checked or unchecked (true or false).',
  patternMismatch: '{label} is not in the expected format.',
  notEditable: '{label} is filled for you and cannot be changed.',
  notYours: 'This field belongs to another recipient.',
  unknownField: 'No field {id} in this request.',
  filledBySigning: '{label} is filled when you sign.',
  alreadySigned: 'Your fields cannot be changed after you have signed.',
  attachmentRequired: 'Please choose a PDF, PNG or JPEG file to attach.',
  attachmentTooLarge: 'The attachment may be at most 5 MB.',
  attachmentType: 'The attachment must be a PDF, PNG or JPEG file.',
  attachmentNotAField: '{label} is not an attachment field.',
  requiredMissing: 'Please fill every required field before signing ({count} left).',
  valuesInvalid: 'values must be an object of field id → value.',
  saved: 'Saved',
} as const;

/** Options a field carries beside its kind and place (as the API takes them and shows them). */
export interface FieldOptions {
  label?: string | null;
  placeholder?: string | null;
  /** text: at most this many characters (defaultTextMaxLength when not set). */
  maxLength?: number | null;
  /** text: a regular expression the whole value must match (anchored), or a name of FIELD_PATTERNS. */
  pattern?: string | null;
  /** What a mismatch says (the named pattern's message, else patternMismatch). */
  patternMessage?: string | null;
  /** dropdown, radio: the choices. */
  options?: string[] | null;
  /** name, initials: whether the signer may change the prefilled value (name: false unless set; initials: true). */
  editable?: boolean | null;
  /** A value filled in before sending (text, number, checkbox 'true'/'false', dropdown, radio); name and initials from the party. */
  value?: string | null;
}

/** A field as the API stores and shows it. */
export interface FieldDefinition extends FieldOptions {
  /** Unique in the request: the sender's own id, or f1, f2… */
  id: string;
  /** The signer's order (1 to 6); in a template, the role (Signer 1…6). */
  signer: number;
  kind: FieldKind;
  /** 1-based. */
  page: number;
  /** [x1, y1, x2, y2] in points from the displayed page's top-left corner. */
  box: [number, number, number, number];
  required: boolean;
}

/** A field's state for its signer (GET /v1/fields/…) and in the request's page. */
export interface FieldState extends FieldDefinition {
  /** The value filled ('true'/'false' for a checkbox; the file name for an attachment); null when empty. */
  value: string | null;
  /** When the value was last set (ISO), null when empty. */
  filledAt: string | null;
  /** SHA-256 (hex) of the value's UTF-8 text, or of the attachment's bytes. */
  sha256: string | null;
  /** For an attachment: its type and size. */
  attachment: { name: string; type: AttachmentType; size: number } | null;
}

/** GET/POST /v1/fields/{orgId}/{requestId}: the signer's own fields and how far they are. */
export interface SignerFieldsView {
  fields: FieldState[];
  /** Required fields still empty (date and signature excluded: signing fills them). */
  requiredLeft: number;
  requiredTotal: number;
  /** False once the party signed (or the request closed): the values are read-only. */
  editable: boolean;
}

/** A filled field as webhooks, /v1/download and the certificate of completion report it. */
export interface FilledField {
  id: string;
  signer: number;
  signerName: string;
  kind: FieldKind;
  label: string;
  value: string | null;
  sha256: string | null;
  filledAt: string | null;
}

/** Patterns compiled once each (a field's own pattern is compiled at placement). */
const compiled = new Map<string, RegExp | null>();

/** The pattern's RegExp (whole value), or null for an invalid pattern. Named patterns (PAN, PIN…) are resolved. */
export function fieldPattern(pattern: string): RegExp | null {
  const named = FIELD_PATTERNS[pattern as keyof typeof FIELD_PATTERNS];
  const source = named ? named.pattern : pattern;
  if (compiled.has(source)) return compiled.get(source) ?? null;
  let re: RegExp | null = null;
  try {
    if (source.length <= FieldLimits.patternMaxLength) re = new RegExp(`^(?:${source})$`, 'u');
  } catch {
    re = null;
  }
  compiled.set(source, re);
  return re;
}

/** What a pattern's mismatch says: the field's own message, the named pattern's, or the general one. */
export function patternMessageOf(
  field: Pick<FieldDefinition, 'pattern' | 'patternMessage' | 'label' | 'kind'>,
): string {
  if (field.patternMessage) return field.patternMessage;
  const named = field.pattern ? FIELD_PATTERNS[field.pattern as keyof typeof FIELD_PATTERNS] : undefined;
  return named ? named.message : fill(FieldMessages.patternMismatch, { label: fieldLabel(field) });
}

/** The field's name for messages and the certificate: its label, else its kind's name. */
export function fieldLabel(field: Pick<FieldDefinition, 'label' | 'kind'>): string {
  return field.label?.trim() || FIELD_KIND_LABELS[field.kind];
}

/** A message with its {placeholders} filled. */
export function fill(message: string, values: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (all, key: string) => (key in values ? String(values[key]) : all));
}

/** The initials of a name: the first letter of each word, at most initialsMaxLength ('Asha Rao' → 'AR'). */
export function initialsOf(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .map((word) => [...word][0] ?? '')
    .join('')
    .toLocaleUpperCase('en-IN')
    .slice(0, FieldLimits.initialsMaxLength);
}

/** Whether the signer may change the field's value (date and signature never; name only when editable). */
export function isSignerEditable(field: Pick<FieldDefinition, 'kind' | 'editable'>): boolean {
  if (field.kind === 'signature' || field.kind === 'date') return false;
  if (field.kind === 'name') return field.editable === true;
  if (field.kind === 'initials') return field.editable !== false;
  return true;
}

/** Whether the field counts among the required fields the signer must fill before signing. */
export function countsAsRequired(field: Pick<FieldDefinition, 'kind' | 'required'>): boolean {
  return field.required && FILLED_KINDS.includes(field.kind);
}

/**
 * Checks a value the signer (or the sender, as a prefill) gives a field, as the API checks it again at signing.
 * Answers the value as stored (text trimmed; a checkbox as 'true' or 'false'; null for empty) or the message.
 * An attachment's value is its file name, set by its upload; the content is checked there.
 */
export function checkFieldValue(
  field: FieldDefinition,
  raw: unknown,
): { ok: true; value: string | null } | { ok: false; message: string } {
  const label = fieldLabel(field);
  const bad = (message: string) => ({ ok: false as const, message: fill(message, { label }) });
  if (field.kind === 'signature' || field.kind === 'date') return bad(FieldMessages.filledBySigning);
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: null };
  if (field.kind === 'checkbox') {
    if (raw === true || raw === 'true') return { ok: true, value: 'true' };
    if (raw === false || raw === 'false') return { ok: true, value: 'false' };
    return bad(FieldMessages.checkboxValue);
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') return bad(FieldMessages.tooLong.replace('{max}', '0'));
  const text = String(raw).replace(/\s+/g, ' ').trim();
  if (!text) return { ok: true, value: null };
  switch (field.kind) {
    case 'number': {
      if (text.length > FieldLimits.numberMaxLength || !/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(text.replace(/,/g, '')))
        return bad(FieldMessages.notANumber);
      return { ok: true, value: text };
    }
    case 'dropdown':
    case 'radio':
      return (field.options ?? []).includes(text) ? { ok: true, value: text } : bad(FieldMessages.notAnOption);
    case 'attachment':
      return text.length <= FieldLimits.attachmentNameMaxLength
        ? { ok: true, value: text }
        : bad(fill(FieldMessages.tooLong, { max: FieldLimits.attachmentNameMaxLength, label }));
    default: {
      const max =
        field.kind === 'initials'
          ? FieldLimits.initialsMaxLength
          : field.kind === 'name'
            ? FieldLimits.nameMaxLength
            : Math.min(field.maxLength ?? FieldLimits.defaultTextMaxLength, FieldLimits.textMaxLength);
      if ([...text].length > max) return bad(fill(FieldMessages.tooLong, { max, label }));
      if (field.kind === 'text' && field.pattern) {
        const re = fieldPattern(field.pattern);
        if (re && !re.test(text)) return { ok: false, message: patternMessageOf(field) };
      }
      return { ok: true, value: text };
    }
  }
}

/** The value a date field shows once its signer signed: the day, in the organisation's time zone ('25 Nov 2026'). */
export function dateSignedValue(at: Date, timeZone: string | null | undefined): string {
  return formatDate(at, timeZone);
}

/** Required fields of one signer still empty, given their values (id → value). */
export function requiredLeft(
  fields: FieldDefinition[],
  values: Record<string, string | null | undefined>,
): FieldDefinition[] {
  return fields.filter(
    (f) =>
      countsAsRequired(f) &&
      (values[f.id] === undefined ||
        values[f.id] === null ||
        values[f.id] === '' ||
        (f.kind === 'checkbox' && values[f.id] !== 'true')),
  );
}

/** Attachment content sniffed from its first bytes; null for anything else (a GIF renamed .png is null). */
export function attachmentTypeOf(bytes: Uint8Array): AttachmentType | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  return null;
}

/**
 * The signer's field calls (the link token in x-sign-token; a signer session where the request needs OTP, as signing
 * does):
 *   GET  fields(…)                 SignerFieldsView: the party's own fields, values and what is left
 *   POST fields(…)                 { values: { id: value } }: all checked, then all stored (or none); SignerFieldsView
 *   POST attachment(…, fieldId)    multipart `file`: PDF, PNG or JPEG at most 5 MB, checked by content; SignerFieldsView
 *   DELETE attachment(…, fieldId)  empties it; SignerFieldsView
 */
export const FieldRoutes = {
  fields: (orgId: string, refId: number | string, order: number | string) => `/v1/fields/${orgId}/${refId}/${order}`,
  attachment: (orgId: string, refId: number | string, order: number | string, fieldId: string) =>
    `/v1/fields/${orgId}/${refId}/${order}/${encodeURIComponent(fieldId)}/attachment`,
} as const;
