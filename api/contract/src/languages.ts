/**
 * The languages of the recipient's side (issue 22): the signing pages and the recipient's e-mails and SMS. English is
 * the default and carries the specification's texts word for word; each other language has its own catalogue of the
 * same keys (`i18n/`).
 */
export const RECIPIENT_LANGUAGES = ['en', 'hi', 'bn', 'mr', 'ta', 'te', 'gu', 'kn'] as const;
export type RecipientLanguage = (typeof RECIPIENT_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: RecipientLanguage = 'en';

/** Each language's name in its own script (the switch on the page, the sender's choice on /request-initiate). */
export const LANGUAGE_NAMES: Record<RecipientLanguage, string> = {
  en: 'English',
  hi: 'हिन्दी',
  bn: 'বাংলা',
  mr: 'मराठी',
  ta: 'தமிழ்',
  te: 'తెలుగు',
  gu: 'ગુજરાતી',
  kn: 'ಕನ್ನಡ',
};

/** The languages of the staff console (react-admin's i18n provider). */
export const CONSOLE_LANGUAGES = ['en', 'hi'] as const;
export type ConsoleLanguage = (typeof CONSOLE_LANGUAGES)[number];

export const isRecipientLanguage = (value: unknown): value is RecipientLanguage =>
  typeof value === 'string' && (RECIPIENT_LANGUAGES as readonly string[]).includes(value);

/**
 * The first of a browser's languages (navigator.languages, or an Accept-Language header's tags in order) that the
 * recipient's side speaks: 'hi-IN' is Hindi, 'ta' Tamil; none is English.
 */
export function pickLanguage(tags: readonly string[]): RecipientLanguage {
  for (const tag of tags) {
    const base = tag.trim().toLowerCase().split(/[-_;]/)[0];
    if (isRecipientLanguage(base)) return base;
  }
  return DEFAULT_LANGUAGE;
}
