import {
  Limits,
  Messages,
  PDF_FILENAME,
  RequestMessages,
  SIGNATURE_TYPES,
  normaliseIndianPhone,
  FieldMessages,
  fill,
  type FieldDefinition,
  type RecipientInput,
  type SignatureType,
} from '@esign/contract';
import { parse } from 'csv-parse/sync';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { CliError, ExitCode } from '../core/errors';
import { fieldsForRecipients, prefillOf, type PlacedField, type SpecField } from '../core/fields';
import { languageOf, recipientProblem } from '../core/recipients';

/**
 * The recipient columns: name1,email1,phone1,type1 … name6,email6,phone6,type6 (a 7th filled is refused), and an
 * optional language1 … language6 (issue 22: the recipient's e-mails, SMS and signing page; empty is English).
 */
const RECIPIENT_FIELDS = ['name', 'email', 'phone', 'type'] as const;
const MAX_REFERENCE = 100;
/** `copy` in a type column: the recipient receives a copy (an observer). */
const COPY_TYPES = ['copy', 'receives a copy', 'observer'];

/** One data row of the CSV. `row` is its line in the file as a spreadsheet shows it (the header is row 1). */
export interface BulkRow {
  row: number;
  reference: string;
  /** True when the CSV has no reference column and the reference was derived (file name, row, content hash). */
  derivedReference: boolean;
  /** Why the row cannot be sent (checked locally, as the console checks its form); null for a good row. */
  error: string | null;
  recipients: RecipientInput[];
  /** The PDF (absolute path), or null with a template. */
  file: string | null;
  templateId: string | null;
  /** The --field fields for this row's signers, each with its signer and the row's `field:<id>` value. */
  fields: PlacedField[];
  /** From a template: the row's values of the template's own fields (upload's fieldValues), by id; null for none. */
  fieldValues: Record<string, string> | null;
}

/** What the CSV's options say: the template of every row, the --field fields, the fields of the templates used. */
export interface BulkCsvOptions {
  template?: string;
  fields?: SpecField[];
  /** Template id → its fields beyond the signature box (GET /v1/templates/{id}), for `field:<id>` columns. */
  templateFields?: Map<string, FieldDefinition[]>;
}

export interface BulkCsv {
  path: string;
  rows: BulkRow[];
  derivedReferences: boolean;
}

const fail = (message: string): never => {
  throw new CliError(message, ExitCode.usage);
};

/** A `field:<id>` column: the value of the field with that id (defined with --field) for each row. */
const FIELD_COLUMN = /^field:(.*)$/i;
const NOT_PREFILLED: readonly string[] = ['signature', 'date', 'attachment'];

/** The CSV's records (the header first); an unreadable file or one that is not CSV is a usage error. */
function recordsOf(path: string): string[][] {
  const file = resolve(path);
  if (!existsSync(file) || !statSync(file).isFile()) fail(`Cannot read ${path}: no such file.`);
  let records: string[][];
  try {
    records = parse(readFileSync(file), {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as string[][];
  } catch (error) {
    return fail(`${path} is not a usable CSV: ${(error as Error).message}`);
  }
  return records;
}

/**
 * The templates whose fields the CSV's `field:<id>` columns may name (--template and the template column), when a
 * column names no --field: their fields are asked of the API before the rows are read.
 */
export function templatesToRead(path: string, options: BulkCsvOptions): string[] {
  const records = recordsOf(path);
  const header = records[0] ?? [];
  const ids = new Set((options.fields ?? []).filter((f) => f.idGiven).map((f) => f.id.toLowerCase()));
  const named = header.some((h) => {
    const m = FIELD_COLUMN.exec(h.trim());
    return m && !ids.has(m[1].trim().toLowerCase());
  });
  if (!named) return [];
  const at = header.findIndex((h) => h.trim().toLowerCase() === 'template');
  const used = new Set(options.template ? [options.template] : []);
  if (at >= 0) for (const record of records.slice(1)) if (record[at]?.trim()) used.add(record[at].trim());
  return [...used];
}

/**
 * Reads and checks the CSV. An unusable file (unreadable, not CSV, no data rows, missing columns, a `field:<id>`
 * column naming no field of --field or of the templates) is a usage error.
 */
export function readBulkCsv(path: string, options: BulkCsvOptions = {}): BulkCsv {
  const file = resolve(path);
  const records = recordsOf(path);
  if (records.length === 0) fail(`${path} is empty: it needs a header row and at least one data row.`);
  const header = records[0].map((h) => h.trim().toLowerCase());
  const data = records.slice(1);
  if (data.length === 0) fail(`${path} has a header but no data rows.`);
  const col = (name: string) => header.indexOf(name);
  if (col('name1') < 0 || col('email1') < 0)
    fail(`${path} needs recipient columns name1,email1,phone1,type1 (up to 6): found ${header.join(',')}.`);
  if (col('file') < 0 && col('template') < 0 && !options.template)
    fail(`${path} needs a file column (a PDF path relative to the CSV's folder), a template column or --template.`);
  const fieldColumns = fieldColumnsOf(path, records[0], options.fields ?? [], options.templateFields ?? new Map());
  const hasReference = col('reference') >= 0;
  const folder = dirname(file);
  const name = basename(file).slice(0, 60);

  const seen = new Map<string, number>();
  const rows = data.map((record, i): BulkRow => {
    const rowNo = i + 2;
    const get = (column: string) => {
      const at = col(column);
      return at < 0 ? '' : (record[at] ?? '').trim();
    };
    const derived = !hasReference || !get('reference');
    const reference = derived
      ? `${name}#${rowNo}#${createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 16)}`
      : get('reference');
    const row: BulkRow = {
      row: rowNo,
      reference,
      derivedReference: derived,
      error: null,
      recipients: [],
      file: null,
      templateId: null,
      fields: [],
      fieldValues: null,
    };
    try {
      if (reference.length > MAX_REFERENCE) throw new Error(RequestMessages.clientReferenceInvalid);
      const earlier = seen.get(reference);
      if (earlier !== undefined) throw new Error(`The reference ${reference} is used by row ${earlier} as well.`);
      seen.set(reference, rowNo);
      row.recipients = recipientsOf(get, header);
      row.templateId = get('template') || options.template || null;
      if (!row.templateId) row.file = pdfOf(get('file'), folder);
      row.fields = fieldsOf(options.fields ?? [], fieldColumns, record, row.recipients);
      row.fieldValues = templateValuesOf(fieldColumns, record, row.templateId, options.templateFields);
    } catch (error) {
      row.error = (error as Error).message;
    }
    return row;
  });
  return { path: file, rows, derivedReferences: rows.some((r) => r.derivedReference) };
}

/** The recipients of a row, checked with the console's rules and messages (admin/src/initiate/form.ts, the API's). */
function recipientsOf(get: (column: string) => string, header: string[]): RecipientInput[] {
  // A 7th (or later) recipient filled in: more than the 6 a request can have.
  const extra = header.some((h) => /^(name|email|phone|type)([7-9]|\d{2,})$/.test(h) && get(h) !== '');
  if (extra) throw new Error(RequestMessages.tooManyRecipients);
  const recipients: RecipientInput[] = [];
  for (let n = 1; n <= Limits.maxRecipients; n++) {
    const [name, email, phone, type] = RECIPIENT_FIELDS.map((f) => get(`${f}${n}`));
    if (!name && !email && !phone && !type) continue;
    const problem = (message: string, what?: string) =>
      new Error(`Recipient ${n}: ${message}${what ? ` (${what})` : ''}`);
    // Empty fields in the console's words; filled ones as the API checks them (the contract's recipientSchema).
    const refused = recipientProblem({ name, email, phone });
    if (!name) throw problem(Messages.fillFormDetails, `name${n} is empty`);
    if (refused?.field === 'name') throw problem(refused.message);
    if (!email) throw problem(Messages.fillFormDetails, `email${n} is empty`);
    if (refused?.field === 'email') throw problem(refused.message, email);
    if (phone.length <= 3) throw problem(Messages.fillFormDetails, `phone${n} is empty`);
    if (refused?.field === 'phone') throw problem(refused.message, phone);
    const phoneNumber = normaliseIndianPhone(phone) as string;
    if (!type) throw problem(Messages.fillFormDetails, `type${n} is empty`);
    const observer = COPY_TYPES.includes(type.toLowerCase());
    const signatureType = observer ? null : signatureTypeOf(type);
    if (!observer && !signatureType)
      throw problem(Messages.selectSignatureType, `${type}: one of ${SIGNATURE_TYPES.join(', ')} or copy`);
    const language = languageOf(get(`language${n}`));
    if ('problem' in language) throw problem(language.problem, get(`language${n}`));
    recipients.push({
      name: name.replace(/\s+/g, ' '),
      email,
      phoneNumber,
      observer,
      signature_type: signatureType,
      ...language,
    });
  }
  if (recipients.length === 0) throw new Error(RequestMessages.noRecipients);
  if (!recipients.some((r) => !r.observer)) throw new Error(RequestMessages.noSigner);
  return recipients;
}

/** A `field:<id>` column: a --field's value, or (from a template) the value of the template's field with that id. */
type FieldColumn = { field: SpecField; templateId?: undefined } | { field?: undefined; templateId: string };

/** Which column prefills which field: the header's `field:<id>` columns (ids as --field or the template names them). */
function fieldColumnsOf(
  path: string,
  header: string[],
  fields: SpecField[],
  templateFields: Map<string, FieldDefinition[]>,
): Map<number, FieldColumn> {
  const columns = new Map<number, FieldColumn>();
  // Only ids given with --field id=… are named by columns (f1, f2… are the API's to give).
  fields = fields.filter((f) => f.idGiven);
  const templateIds = [...new Set([...templateFields.values()].flat().map((f) => f.id))];
  header.forEach((h, at) => {
    const m = FIELD_COLUMN.exec(h.trim());
    if (!m) return;
    const id = m[1].trim();
    // The id as written; else the one id equal to it ignoring case (spreadsheets like to change a header's case).
    const byId = <T>(list: T[], idOf: (item: T) => string) => {
      const same = list.filter((item) => idOf(item).toLowerCase() === id.toLowerCase());
      return list.find((item) => idOf(item) === id) ?? (same.length === 1 ? same[0] : undefined);
    };
    const field = byId(fields, (f) => f.id);
    const templateId = field ? undefined : byId(templateIds, (t) => t);
    if (!field && !templateId) {
      const known = [...fields.map((f) => f.id), ...templateIds];
      return fail(
        `${path}: the column ${h.trim()} names no field: define it with --field id=${id || '<id>'},… ` +
          `(${known.length ? `fields: ${known.join(', ')}` : 'no --field given'}).`,
      );
    }
    const key = field?.id ?? (templateId as string);
    if ([...columns.values()].some((c) => (c.field?.id ?? c.templateId) === key))
      fail(`${path}: two columns prefill the field ${key}.`);
    // signature, date and attachment fields are never prefilled: a column for one is refused whatever it holds.
    const definitions = field ? [field] : [...templateFields.values()].flat().filter((f) => f.id === key);
    for (const definition of definitions) {
      const never = NOT_PREFILLED.includes(definition.kind) ? prefillOf(definition, 'x') : null;
      if (never && !never.ok) fail(`${path}: the column ${h.trim()} cannot be used: ${never.message}`);
    }
    columns.set(at, field ? { field } : { templateId: key });
  });
  return columns;
}

/**
 * The row's fields: each --field for its signer (checked against this row's recipients), with the row's value of its
 * `field:<id>` column (an empty cell keeps the field's own value), checked as the API checks a prefill.
 */
function fieldsOf(
  fields: SpecField[],
  columns: Map<number, FieldColumn>,
  record: string[],
  recipients: RecipientInput[],
): PlacedField[] {
  if (!fields.length) return [];
  const placed = fieldsForRecipients(fields, recipients);
  if (!placed.ok) throw new Error(placed.message);
  const values = new Map<string, string | null>();
  for (const [at, { field }] of columns) {
    const cell = (record[at] ?? '').trim();
    if (!field || !cell) continue;
    const checked = prefillOf(field, cell);
    if (!checked.ok) throw new Error(`field:${field.id}: ${checked.message}`);
    values.set(field.id, checked.value);
  }
  return [...placed.bySigner.values()]
    .flat()
    .map((f) => (f.id !== undefined && values.has(f.id) ? { ...f, value: values.get(f.id) ?? null } : f));
}

/** The row's values of its template's own fields (`field:<id>` columns naming them), checked as a prefill. */
function templateValuesOf(
  columns: Map<number, FieldColumn>,
  record: string[],
  templateId: string | null,
  templateFields: Map<string, FieldDefinition[]> | undefined,
): Record<string, string> | null {
  const values: Record<string, string> = {};
  for (const [at, { templateId: id }] of columns) {
    const cell = (record[at] ?? '').trim();
    if (!id || !cell) continue;
    const field = templateId ? templateFields?.get(templateId)?.find((f) => f.id === id) : undefined;
    if (!field) throw new Error(`field:${id}: ${fill(FieldMessages.unknownField, { id })}`);
    const checked = prefillOf(field, cell);
    if (!checked.ok) throw new Error(`field:${id}: ${checked.message}`);
    if (checked.value !== null) values[id] = checked.value;
  }
  return Object.keys(values).length ? values : null;
}

function signatureTypeOf(value: string): SignatureType | null {
  const v = value.trim().toLowerCase();
  return SIGNATURE_TYPES.find((t) => t.toLowerCase() === v) ?? null;
}

/** The row's PDF, relative to the CSV's folder: it must exist, be named *.pdf (one dot) and be under 5 MB. */
function pdfOf(value: string, folder: string): string {
  if (!value) throw new Error(`${RequestMessages.fileRequired} (the file column is empty)`);
  const path = resolve(folder, value);
  if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`File not found: ${value}`);
  if (!PDF_FILENAME.test(basename(path))) throw new Error(`${Messages.invalidPdf}: ${value}`);
  if (statSync(path).size >= Limits.maxFileBytes) throw new Error(`${Messages.fileTooLarge}: ${value}`);
  return path;
}
