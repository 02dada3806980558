import { Limits, Messages, RECIPIENT_TYPES, checkInput, pdfFileNameProblem, recipientSchema } from '@esign/contract';
import { DEFAULT_LANGUAGE } from '@esign/contract';
import type { RecipientInput, RecipientLanguage, SignatureType } from '@esign/contract';

export type RecipientType = (typeof RECIPIENT_TYPES)[number];
export const NEEDS_TO_SIGN: RecipientType = RECIPIENT_TYPES[0];
export const RECEIVES_COPY: RecipientType = RECIPIENT_TYPES[1];

/** One recipient card as the form holds it; `phone` is what was typed after the fixed +91. */
export interface RecipientForm {
  key: string;
  name: string;
  email: string;
  phone: string;
  recipientType: RecipientType | '';
  signatureType: SignatureType | '';
  /** The recipient's language (issue 22): their e-mails, SMS and signing page. English unless chosen. */
  language: RecipientLanguage;
}

export interface InitiateForm {
  recipients: RecipientForm[];
  hasDocument: boolean;
  reminder: boolean;
  reminderDuration: number | null;
}

let nextKey = 0;
export const emptyRecipient = (): RecipientForm => ({
  key: `r${nextKey++}`,
  name: '',
  email: '',
  phone: '',
  recipientType: '',
  signatureType: '',
  language: DEFAULT_LANGUAGE,
});

/** The phone as the API takes it: India only (the +91 is fixed in the input). */
export const phoneNumberOf = (r: RecipientForm): string => `+91 ${r.phone.trim()}`;

/** Which field of which card is wrong, and the message the specification gives for it (section 5). */
export interface FormProblem {
  message: string;
  index?: number;
  field?: 'name' | 'email' | 'phone' | 'recipientType' | 'signatureType' | 'document' | 'duration';
}

type CardField = NonNullable<FormProblem['field']>;

/** The card's field a problem of the contract's recipientSchema is about. */
const FIELD_OF: Record<string, CardField> = { name: 'name', email: 'email', phoneNumber: 'phone' };

/**
 * The first problem the API would answer for this card: the contract's recipientSchema, the very check of
 * /v1/upload, on what PROCEED sends for it (so the console refuses exactly what the API refuses, with its message).
 */
function apiProblem(r: RecipientForm): { message: string; field: CardField } | null {
  const checked = checkInput(recipientSchema, recipientsPayload([r])[0]);
  if (checked.ok) return null;
  const { message, path } = checked.problem;
  const field =
    FIELD_OF[String(path[0])] ?? (message === Messages.selectSignatureType ? 'signatureType' : 'recipientType');
  return { message, field };
}

/**
 * PROCEED's checks in the specification's words: every recipient needs name, valid email, phone, recipient type and,
 * if a signer, a signature type; a file; a duration when Set Reminder is on. An empty field is 'Please fill the form(s)
 * details'; a field filled in but refused by the API's own check (recipientSchema of the contract: an e-mail that is not
 * one, a phone that is not an Indian mobile number, a name of more than 200 characters) gets the API's message on its
 * card, field by field in the card's order.
 */
export function validateInitiate(form: InitiateForm): FormProblem | null {
  for (const [index, r] of form.recipients.entries()) {
    const api = apiProblem(r);
    const refused = (field: CardField) => (api?.field === field ? { message: api.message, index, field } : null);
    if (!r.name.trim()) return { message: Messages.fillFormDetails, index, field: 'name' };
    const name = refused('name');
    if (name) return name;
    if (!r.email.trim()) return { message: Messages.fillFormDetails, index, field: 'email' };
    const email = refused('email');
    if (email) return email;
    if (!r.phone.trim()) return { message: Messages.fillFormDetails, index, field: 'phone' };
    const phone = refused('phone');
    if (phone) return phone;
    if (!r.recipientType) return { message: Messages.fillFormDetails, index, field: 'recipientType' };
    if (r.recipientType === NEEDS_TO_SIGN && !r.signatureType)
      return { message: Messages.selectSignatureType, index, field: 'signatureType' };
    const rest = api && { message: api.message, index, field: api.field };
    if (rest) return rest;
  }
  if (!form.hasDocument) return { message: Messages.fillFormDetails, field: 'document' };
  if (form.reminder && !form.reminderDuration) return { message: Messages.selectDuration, field: 'duration' };
  return null;
}

/** The `data` field of /v1/upload. Receiving a copy means observer and no signature type (spec section 4). */
export const recipientsPayload = (recipients: RecipientForm[]): RecipientInput[] =>
  recipients.map((r) => ({
    name: r.name.trim(),
    email: r.email.trim(),
    phoneNumber: phoneNumberOf(r),
    observer: r.recipientType === RECEIVES_COPY,
    signature_type: r.recipientType === RECEIVES_COPY ? null : r.signatureType || null,
    language: r.language,
  }));

/**
 * The file dialog's checks before anything is sent (spec section 5): a PDF (else the specification's text), named with
 * one dot, before pdf (a name like 'my.contract.pdf' is told that rule), under 5 MB.
 */
export function checkPdfFile(file: Pick<File, 'name' | 'type' | 'size'>): string | null {
  if (file.type !== 'application/pdf') return Messages.invalidPdf;
  const name = pdfFileNameProblem(file.name);
  if (name === 'dots') return Messages.pdfFileNameDots;
  if (name) return Messages.invalidPdf;
  if (file.size >= Limits.maxFileBytes) return Messages.fileTooLarge;
  return null;
}

/** The digits after +91 of a stored number, for editing a draft. */
export const localPhone = (phoneNumber: string): string => phoneNumber.replace(/^\+?91\s*/, '').trim();
