/**
 * Checks the console and the API both make (spec section 5), written once.
 */

/** The same shape a user would accept as an email address: local@domain.tld, no spaces, at most 254 characters. */
export const EMAIL_PATTERN =
  /^[^\s@"<>(),;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL_PATTERN.test(value);

/**
 * India-only phone numbers (spec section 5). OTPs and invitations go by SMS, so it must be a mobile number: ten digits
 * starting 6 to 9, optionally after +91, 91 or 0, with spaces, dashes, dots or brackets in between. Answers +91…, or
 * null for anything else.
 */
export function normaliseIndianPhone(input: unknown): string | null {
  if (typeof input !== 'string' && typeof input !== 'number') return null;
  const text = String(input).trim();
  if (text.length <= 3 || !/^[+\d\s().-]+$/.test(text)) return null;
  let digits = text.replace(/\D/g, '');
  if (text.startsWith('+') && !digits.startsWith('91')) return null;
  if (digits.length === 12 && digits.startsWith('91')) digits = digits.slice(2);
  else if (digits.length === 11 && digits.startsWith('0')) digits = digits.slice(1);
  return /^[6-9]\d{9}$/.test(digits) ? `+91${digits}` : null;
}

/** Spec section 5: PDF only, exactly one dot in the name. */
export const PDF_FILENAME = /^[^.]+\.pdf$/i;

/**
 * Which rule a PDF's file name breaks, if any: 'dots' for a name ending in .pdf with another dot before it
 * ('my.contract.pdf': Messages.pdfFileNameDots), 'format' for anything else that is not name.pdf (Messages.invalidPdf).
 */
export function pdfFileNameProblem(filename: string): 'dots' | 'format' | null {
  const name = filename.trim();
  if (PDF_FILENAME.test(name)) return null;
  const base = /\.pdf$/i.test(name) ? name.slice(0, -4) : '';
  return base.includes('.') && /[^.]/.test(base) ? 'dots' : 'format';
}
