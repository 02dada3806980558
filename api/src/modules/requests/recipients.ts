import {
  Limits,
  Messages,
  RECIPIENT_TYPES,
  RequestMessages,
  SIGNATURE_TYPES,
  isEmail,
  normaliseIndianPhone,
  type RecipientInput,
  type SignatureType,
} from '@esign/contract';
import { AppError } from '../../common/app-error';

export interface ValidRecipient {
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signatureType: SignatureType | null;
}

export interface RequestOptions {
  checkOrder: boolean;
  otpRequired: boolean;
  reminder: boolean;
  reminderDuration: number | null;
}

const fail = (message: string, index?: number): never => {
  throw new AppError('VALIDATION_FAILED', index === undefined ? message : `Recipient ${index + 1}: ${message}`);
};

export function parseBoolean(value: unknown, fallback: boolean, field: string): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  throw new AppError('VALIDATION_FAILED', `${field} must be true or false.`);
}

function signatureTypeOf(value: unknown): SignatureType | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return SIGNATURE_TYPES.find((t) => t.toLowerCase() === v) ?? null;
}

function observerOf(r: RecipientInput): boolean | null {
  const type = typeof r.recipient_type === 'string' ? r.recipient_type.trim() : '';
  if (type) {
    if (type === RECIPIENT_TYPES[0]) return false;
    if (type === RECIPIENT_TYPES[1]) return true;
    return null;
  }
  if (r.observer === undefined || r.observer === null || r.observer === '') return null;
  if (r.observer === true || r.observer === 'true') return true;
  if (r.observer === false || r.observer === 'false') return false;
  return null;
}

/** Parses and checks the recipients of /v1/upload (spec section 5). Nothing is written until this passes. */
export function validateRecipients(data: unknown, allowedTypes: readonly string[]): ValidRecipient[] {
  let list: unknown = data;
  if (typeof data === 'string') {
    try {
      list = JSON.parse(data);
    } catch {
      fail(RequestMessages.dataInvalid);
    }
  }
  if (!Array.isArray(list)) return fail(RequestMessages.dataInvalid);
  if (list.length === 0) fail(RequestMessages.noRecipients);
  if (list.length > Limits.maxRecipients) fail(RequestMessages.tooManyRecipients);

  const recipients = list.map((raw: unknown, i): ValidRecipient => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail(Messages.fillFormDetails, i);
    const r = raw as RecipientInput;
    const name = typeof r.name === 'string' ? r.name.trim().replace(/\s+/g, ' ') : '';
    if (!name) fail(RequestMessages.nameRequired, i);
    if (name.length > 200) fail('The name may have at most 200 characters.', i);
    const email = typeof r.email === 'string' ? r.email.trim() : '';
    if (!email || !isEmail(email)) fail(Messages.invalidEmail, i);
    const phoneNumber = normaliseIndianPhone(r.phoneNumber);
    if (!phoneNumber) fail(RequestMessages.phoneInvalid, i);
    const observer = observerOf(r);
    if (observer === null) fail(RequestMessages.recipientTypeRequired, i);
    let signatureType: SignatureType | null = null;
    if (!observer) {
      signatureType = signatureTypeOf(r.signature_type);
      if (!signatureType) fail(Messages.selectSignatureType, i);
      if (!allowedTypes.includes(signatureType as string))
        fail(`The signature type ${signatureType} is not enabled for your organisation.`, i);
    }
    return { name, email, phoneNumber: phoneNumber as string, observer: observer as boolean, signatureType };
  });
  if (!recipients.some((r) => !r.observer)) fail(RequestMessages.noSigner);
  return recipients;
}

/** checkOrder, otpRequired, reminder and reminder_duration of /v1/upload. */
export function validateOptions(body: Record<string, unknown>): RequestOptions {
  // Parallel signing is on by default, and the console sends checkOrder as its inverse: sequential when true.
  const checkOrder = parseBoolean(body.checkOrder, false, 'checkOrder');
  const otpRequired = parseBoolean(body.otpRequired, true, 'otpRequired');
  const reminder = parseBoolean(body.reminder, false, 'reminder');
  let reminderDuration: number | null = null;
  if (reminder) {
    const raw = body.reminder_duration;
    if (raw === undefined || raw === null || raw === '') fail(Messages.selectDuration);
    const hours = Number(raw);
    if (!(Limits.reminderHours as readonly number[]).includes(hours)) fail(RequestMessages.durationInvalid);
    reminderDuration = hours;
  }
  return { checkOrder, otpRequired, reminder, reminderDuration };
}
