import type { RecipientLanguage } from '@esign/contract';

/** The Unicode block each recipient language other than English is written in (a text in it must use that script). */
export const SCRIPT_OF: Record<Exclude<RecipientLanguage, 'en'>, RegExp> = {
  hi: /[\u0900-\u097F]/,
  mr: /[\u0900-\u097F]/,
  bn: /[\u0980-\u09FF]/,
  gu: /[\u0A80-\u0AFF]/,
  ta: /[\u0B80-\u0BFF]/,
  te: /[\u0C00-\u0C7F]/,
  kn: /[\u0C80-\u0CFF]/,
};
