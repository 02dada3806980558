import {
  Limits,
  Messages,
  RequestMessages,
  SIGNATURE_TYPES,
  checkInput,
  recipientLanguageOf,
  recipientSchema,
  type RecipientLanguage,
  type SignatureType,
} from '@esign/contract';
import { CliError, ExitCode } from './errors';

/** A recipient as /v1/upload takes it in `data`. */
export interface RecipientSpec {
  name: string;
  email: string;
  phoneNumber: string;
  observer: boolean;
  signature_type?: SignatureType;
  /** The recipient's language (issue 22): their e-mails, SMS and signing page; absent is English. */
  language?: RecipientLanguage;
}

/** A recipient's language as given (a code of RECIPIENT_LANGUAGES, any case; '' none), or the API's message. */
export function languageOf(value: string): { language?: RecipientLanguage } | { problem: string } {
  const language = recipientLanguageOf(value);
  if (language === undefined) return { problem: RequestMessages.languageInvalid };
  return language ? { language } : {};
}

/**
 * The API's own check of a recipient's name, e-mail and phone (the contract's recipientSchema, as /v1/upload reads
 * them): the field it refuses first, with the API's message; null when it takes them.
 */
export function recipientProblem(r: {
  name: string;
  email: string;
  phone: string;
}): { field: 'name' | 'email' | 'phone'; message: string } | null {
  // As a copy-receiver: the signature type is checked by each caller with its own hint.
  const checked = checkInput(recipientSchema, { name: r.name, email: r.email, phoneNumber: r.phone, observer: true });
  if (checked.ok) return null;
  const field = checked.problem.path[0] === 'phoneNumber' ? 'phone' : (checked.problem.path[0] as 'name' | 'email');
  return { field, message: checked.problem.message };
}

const usage = (message: string, index?: number): never => {
  throw new CliError(index === undefined ? message : `Recipient ${index + 1}: ${message}`, ExitCode.usage);
};

/**
 * --signer "Name,email,phone,type[,language]" and --copy "Name,email,phone[,language]", checked with the API's own
 * rules and texts (api/src/modules/requests/recipients.ts): signers first, in the order given, then the copies.
 */
export function parseRecipients(signers: string[], copies: string[]): RecipientSpec[] {
  const specs = [...signers.map((s) => ({ s, observer: false })), ...copies.map((s) => ({ s, observer: true }))];
  if (specs.length === 0) usage(RequestMessages.noRecipients);
  if (specs.length > Limits.maxRecipients) usage(RequestMessages.tooManyRecipients);
  const list = specs.map(({ s, observer }, i): RecipientSpec => {
    const parts = s.split(',').map((p) => p.trim());
    const want = observer ? 3 : 4;
    if (parts.length !== want && parts.length !== want + 1)
      usage(
        observer
          ? `--copy takes "Name,email,phone[,language]" (got "${s}").`
          : `--signer takes "Name,email,phone,type[,language]" with type ${SIGNATURE_TYPES.join('|')} (got "${s}").`,
        i,
      );
    const [name, email, phone] = parts;
    const type = observer ? '' : parts[3];
    if (!name) usage(RequestMessages.nameRequired, i);
    const refused = recipientProblem({ name, email, phone });
    if (refused) usage(refused.message, i);
    const language = languageOf(parts[want] ?? '');
    if ('problem' in language) return usage(language.problem, i);
    if (observer) return { name, email, phoneNumber: phone, observer, ...language };
    const signatureType = SIGNATURE_TYPES.find((t) => t.toLowerCase() === (type ?? '').toLowerCase());
    if (!signatureType) usage(`${Messages.selectSignatureType} (${SIGNATURE_TYPES.join('|')})`, i);
    return { name, email, phoneNumber: phone, observer, signature_type: signatureType, ...language };
  });
  if (!list.some((r) => !r.observer)) usage(RequestMessages.noSigner);
  return list;
}

/** "1,3-5" → [1, 3, 4, 5]. */
export function parsePages(text: string): number[] {
  const pages = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new CliError(`--page takes page numbers and ranges like 1,3-5 (got "${text}").`, ExitCode.usage);
    const from = Number(m[1]);
    const to = m[2] ? Number(m[2]) : from;
    if (from < 1 || to < from || to - from > 10_000)
      throw new CliError(`--page: "${part}" is not a valid page range.`, ExitCode.usage);
    for (let p = from; p <= to; p++) pages.add(p);
  }
  if (!pages.size) throw new CliError(Messages.noPagesSelected, ExitCode.usage);
  return [...pages].sort((a, b) => a - b);
}

/** "x1,y1,x2,y2" in PDF points, as /v1/save takes it. */
export function parseBox(text: string): string {
  const n = text.split(',').map((p) => Number(p.trim()));
  if (n.length !== 4 || !n.every((v) => Number.isFinite(v)) || n[2] <= n[0] || n[3] <= n[1])
    throw new CliError(Messages.invalidRectangle, ExitCode.usage);
  return n.join(',');
}
