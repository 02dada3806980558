import {
  Limits,
  Messages,
  PDF_FILENAME,
  RequestMessages,
  SIGNATURE_TYPES,
  normaliseIndianPhone,
  type RecipientInput,
  type SignatureType,
} from '@esign/contract';
import { parse } from 'csv-parse/sync';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { CliError, ExitCode } from '../core/errors';
import { recipientProblem } from '../core/recipients';

/** The recipient columns: name1,email1,phone1,type1 … name6,email6,phone6,type6 (a 7th filled is refused). */
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
}

export interface BulkCsv {
  path: string;
  rows: BulkRow[];
  derivedReferences: boolean;
}

const fail = (message: string): never => {
  throw new CliError(message, ExitCode.usage);
};

/** Reads and checks the CSV. An unusable file (unreadable, not CSV, no data rows, missing columns) is a usage error. */
export function readBulkCsv(path: string, options: { template?: string } = {}): BulkCsv {
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
  if (records.length === 0) fail(`${path} is empty: it needs a header row and at least one data row.`);
  const header = records[0].map((h) => h.trim().toLowerCase());
  const data = records.slice(1);
  if (data.length === 0) fail(`${path} has a header but no data rows.`);
  const col = (name: string) => header.indexOf(name);
  if (col('name1') < 0 || col('email1') < 0)
    fail(`${path} needs recipient columns name1,email1,phone1,type1 (up to 6): found ${header.join(',')}.`);
  if (col('file') < 0 && col('template') < 0 && !options.template)
    fail(`${path} needs a file column (a PDF path relative to the CSV's folder), a template column or --template.`);
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
    };
    try {
      if (reference.length > MAX_REFERENCE) throw new Error(RequestMessages.clientReferenceInvalid);
      const earlier = seen.get(reference);
      if (earlier !== undefined) throw new Error(`The reference ${reference} is used by row ${earlier} as well.`);
      seen.set(reference, rowNo);
      row.recipients = recipientsOf(get, header);
      row.templateId = get('template') || options.template || null;
      if (!row.templateId) row.file = pdfOf(get('file'), folder);
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
    recipients.push({ name: name.replace(/\s+/g, ' '), email, phoneNumber, observer, signature_type: signatureType });
  }
  if (recipients.length === 0) throw new Error(RequestMessages.noRecipients);
  if (!recipients.some((r) => !r.observer)) throw new Error(RequestMessages.noSigner);
  return recipients;
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
