/**
 * --field on `send` and `bulk` (issue 21): a field a signer fills, written as comma-separated key=value pairs and bare
 * flags, e.g. `signer=1,kind=text,label=PAN,page=1,box=72,640,272,662,required,pattern=PAN`. Every spec is checked
 * with the contract's fieldInputSchema (the API's own check and message) before anything is sent; where it sits on the
 * page is checked by the API against the document.
 */
import {
  FIELD_KINDS,
  FIELD_PATTERNS,
  FieldLimits,
  FieldMessages,
  Limits,
  assignFieldIds,
  checkFieldValue,
  checkInput,
  fieldInputSchema,
  fieldLabel,
  fill,
  type FieldDefinition,
} from '@esign/contract';
import { CliError, ExitCode } from './errors';

/** The keys a spec may name (lower case, as typed) → the field's own key. */
const KEYS: Record<string, string> = {
  id: 'id',
  signer: 'signer',
  kind: 'kind',
  page: 'page',
  box: 'box',
  label: 'label',
  placeholder: 'placeholder',
  maxlength: 'maxLength',
  'max-length': 'maxLength',
  pattern: 'pattern',
  message: 'patternMessage',
  patternmessage: 'patternMessage',
  options: 'options',
  value: 'value',
  required: 'required',
  editable: 'editable',
};

/** The keys as the help and messages name them. */
const KEY_NAMES = [
  'id',
  'signer',
  'kind',
  'page',
  'box',
  'label',
  'placeholder',
  'maxLength',
  'pattern',
  'message',
  'options',
  'value',
  'required',
  'editable',
];

/** Bare flags: the key each sets, and to what. */
const FLAGS: Record<string, [string, string]> = {
  required: ['required', 'true'],
  optional: ['required', 'false'],
  editable: ['editable', 'true'],
};

/** A field as given with --field: checked, its id given or assigned (f1, f2…), its signer 0 when left out. */
export interface SpecField extends FieldDefinition {
  /** The --field text it came from, for messages. */
  spec: string;
  /** Whether the id is the sender's own (id=): only those are sent, and named by bulk's field:<id> columns. */
  idGiven: boolean;
}

/**
 * A field as sent in a /v1/save or /v1/process entry: its signer resolved, its id only when given (the API gives the
 * others f1, f2… not taken in the request, so they cannot collide with a template's fields of another signer).
 */
export type PlacedField = Omit<FieldDefinition, 'id'> & { id?: string };

/** The help text of --field (send and bulk). */
export const FIELD_HELP =
  'a field for a signer to fill: comma-separated key=value pairs and flags, e.g. ' +
  '"signer=1,kind=text,label=PAN,page=1,box=72,640,272,662,required,pattern=PAN"; repeat';

/** The longer description printed after `send --help` and `bulk --help`. */
export const FIELD_HELP_DETAILS = [
  'Fields (--field, repeatable):',
  `  kind=      ${FIELD_KINDS.join(', ')}`,
  '  signer=    the recipient order (1 to 6) of a signer (not a copy-receiver); may be left out when there is one signer',
  '  page=      1-based page number',
  '  box=       x1,y1,x2,y2 in PDF points from the top-left corner of the page as displayed (y grows downward),',
  `             at least ${FieldLimits.minBoxPoints} points each way, inside the page (what pdftotext -bbox reports)`,
  `  id=        letters, digits, - and _ (at most ${FieldLimits.idMaxLength}); f1, f2… when left out`,
  '  label=, placeholder=, maxLength= (text), value= (a prefilled value; checkbox true|false)',
  `  pattern=   text: a regular expression the whole value must match, or ${Object.keys(FIELD_PATTERNS).join(', ')}`,
  "  message=   what a value that does not match the pattern is told (default: the named pattern's message)",
  '  options=   dropdown, radio: the choices, a|b|c',
  '  flags:     required, optional (required is the default except for a checkbox), editable (name, initials)',
  '  A value with a comma is quoted with double quotes: label="Address, line 1" ("" for a quote inside).',
];

const usage = (spec: string, message: string): never => {
  throw new CliError(`--field "${spec}": ${message}`, ExitCode.usage);
};

/** Splits a spec at the commas outside double quotes; quotes are removed ("" inside quotes is a quote). */
function tokens(spec: string): Array<{ text: string; quoted: boolean }> {
  const out: Array<{ text: string; quoted: boolean }> = [];
  let text = '';
  let quoted = false;
  let inside = false;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (inside) {
      if (c === '"' && spec[i + 1] === '"') {
        text += '"';
        i++;
      } else if (c === '"') inside = false;
      else text += c;
    } else if (c === '"') {
      inside = true;
      quoted = true;
    } else if (c === ',') {
      out.push({ text, quoted });
      text = '';
      quoted = false;
    } else text += c;
  }
  if (inside) usage(spec, 'a double quote is not closed.');
  out.push({ text, quoted });
  return out;
}

/** The spec's key=value pairs as the field's keys (not yet checked). */
export function fieldSpecObject(spec: string): Record<string, string> {
  const parts = tokens(spec);
  const out: Record<string, string> = {};
  const set = (key: string, value: string) => {
    if (key in out) usage(spec, `${key} is given twice.`);
    out[key] = value;
  };
  for (let i = 0; i < parts.length; i++) {
    const { text, quoted } = parts[i];
    const eq = text.indexOf('=');
    if (eq < 0) {
      const flag = text.trim().toLowerCase();
      if (!flag && !quoted) continue; // a,,b or a trailing comma
      const known = FLAGS[flag];
      if (!known)
        usage(
          spec,
          `"${text.trim()}" is neither key=value nor a flag (${Object.keys(FLAGS).join(', ')}); ` +
            'a value with a comma needs double quotes.',
        );
      set(known[0], known[1]);
      continue;
    }
    const name = text.slice(0, eq).trim();
    const key = KEYS[name.toLowerCase()];
    if (!key) usage(spec, `unknown key "${name}" (keys: ${KEY_NAMES.join(', ')}).`);
    let value = text.slice(eq + 1).trim();
    // box=x1,y1,x2,y2 unquoted: its numbers are the next three items.
    if (key === 'box' && !quoted && !value.includes(','))
      for (let n = 0; n < 3 && i + 1 < parts.length && !parts[i + 1].text.includes('='); n++) {
        const next = parts[i + 1].text.trim();
        if (FLAGS[next.toLowerCase()]) break;
        value += `,${next}`;
        i++;
      }
    set(key, value);
  }
  return out;
}

/** One --field spec, checked with the contract's fieldInputSchema (refused with its message, naming the spec). */
export function parseFieldSpec(spec: string) {
  const checked = checkInput(fieldInputSchema, fieldSpecObject(spec));
  if (!checked.ok) return usage(spec, checked.problem.message);
  return checked.value;
}

/**
 * Every --field: each checked, at most maxFieldsPerRequest, ids unique (the contract's assignFieldIds: given ids
 * kept, the others f1, f2… for the CLI's own use). A field without a signer keeps signer 0 until
 * `fieldsForRecipients` resolves it.
 */
export function parseFieldSpecs(specs: string[]): SpecField[] {
  if (specs.length > FieldLimits.maxFieldsPerRequest) throw new CliError(FieldMessages.tooManyFields, ExitCode.usage);
  const parsed = specs.map((spec) => ({ spec, field: parseFieldSpec(spec) }));
  // Two fields with one id: the contract's message, naming the second spec.
  const seen = new Set<string>();
  for (const { spec, field } of parsed) {
    if (field.id === undefined) continue;
    if (seen.has(field.id)) usage(spec, fill(FieldMessages.idDuplicate, { id: field.id }));
    seen.add(field.id);
  }
  const ids = assignFieldIds(
    parsed.map((p) => p.field),
    (f) => f.signer ?? 0,
  );
  if (!ids.ok) throw new CliError(`--field: ${ids.message}`, ExitCode.usage);
  return ids.fields.map((f, i) => ({ ...f, spec: parsed[i].spec, idGiven: parsed[i].field.id !== undefined }));
}

/**
 * The fields of a request with these recipients (in their order, 1…): each field's signer must be a recipient who
 * signs (left out: the only signer). Answers the fields by signer order (without `spec`), or the message.
 */
export function fieldsForRecipients(
  fields: SpecField[],
  recipients: ReadonlyArray<{ observer?: unknown }>,
): { ok: true; bySigner: Map<number, PlacedField[]> } | { ok: false; message: string } {
  const copy = (r: { observer?: unknown } | undefined) => r?.observer === true;
  const signers = recipients.map((r, i) => ({ order: i + 1, observer: copy(r) })).filter((r) => !r.observer);
  const bySigner = new Map<number, PlacedField[]>();
  for (const { spec, idGiven, id, ...field } of fields) {
    let signer = field.signer;
    if (!signer) {
      if (signers.length !== 1)
        return {
          ok: false,
          message: `--field "${spec}": ${FieldMessages.signerInvalid} (signer= is needed with more than one signer)`,
        };
      signer = signers[0].order;
    }
    const recipient = recipients[signer - 1];
    if (!recipient || copy(recipient) || signer > Limits.maxRecipients)
      return {
        ok: false,
        message:
          `--field "${spec}": ${FieldMessages.signerInvalid}` +
          (recipient ? ` (recipient ${signer} receives a copy)` : ` (there is no recipient ${signer})`),
      };
    bySigner.set(signer, [...(bySigner.get(signer) ?? []), { ...(idGiven ? { id } : {}), ...field, signer }]);
  }
  return { ok: true, bySigner };
}

/**
 * A value for a field, given by a bulk row (`field:<id>` column): checked as the API checks a prefill (checkFieldValue,
 * refused with prefillInvalid). Answers the value as stored, or the message.
 */
export function prefillOf(
  field: FieldDefinition,
  raw: string,
): { ok: true; value: string | null } | { ok: false; message: string } {
  const label = fieldLabel(field);
  if (field.kind === 'signature' || field.kind === 'date' || field.kind === 'attachment')
    return {
      ok: false,
      message: fill(FieldMessages.prefillInvalid, { label, reason: fill(FieldMessages.filledBySigning, { label }) }),
    };
  const checked = checkFieldValue(field, raw);
  return checked.ok
    ? checked
    : { ok: false, message: fill(FieldMessages.prefillInvalid, { label, reason: checked.message }) };
}
