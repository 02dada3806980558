import {
  AdminMessages,
  FIELD_KIND_LABELS,
  Messages,
  RECIPIENT_TYPES,
  REMINDER_LABELS,
  RequestMessages,
  RetentionMessages,
  SignerDataMessages,
  WatchdogMessages,
} from '@esign/contract';
import { ConsoleTexts } from './texts';

/**
 * Polyglot writes a value as %{name}; the contract's texts as {name} (its fill()). The English catalogue takes the
 * contract's texts as they are and only changes that mark, so no text of the specification is typed twice.
 */
export const polyglotText = (text: string): string => text.replace(/\{(\w+)\}/g, '%{$1}');

/** A tree of texts with the same keys, every leaf a string (what a translation must give). */
export type TextTree<T> = { [K in keyof T]: T[K] extends string ? string : TextTree<T[K]> };

function polyglotTree<T extends object>(texts: T): TextTree<T> {
  return Object.fromEntries(
    Object.entries(texts)
      .filter(([, value]) => typeof value === 'string' || (typeof value === 'object' && value !== null))
      .map(([key, value]) => [key, typeof value === 'string' ? polyglotText(value) : polyglotTree(value as object)]),
  ) as TextTree<T>;
}

/**
 * The console's texts in English, by source: `esign` the contract's Messages (the specification's texts word for
 * word), `admin` the administration's (AdminMessages), `request` the API's request answers the console shows
 * (RequestMessages), `watchdog`, `retention` and `signers` issue 24's (WatchdogMessages, RetentionMessages,
 * SignerDataMessages), `terms` the contract's names of choices, and `console` the console's own (./texts.ts). (/list, the recipient's own list, is a recipient's
 * page: it speaks the contract's RecipientListTexts, in English.)
 */
export const consoleCatalogue = {
  esign: polyglotTree(Messages),
  admin: polyglotTree(AdminMessages),
  request: polyglotTree(RequestMessages),
  /** Issue 24's answers and texts: the watchdog's findings and banner, retention, a signer's data. */
  watchdog: polyglotTree(WatchdogMessages),
  retention: polyglotTree(RetentionMessages),
  signers: polyglotTree(SignerDataMessages),
  /** The contract's words for choices: recipient types, reminder durations, the kinds of fields. */
  terms: {
    recipientTypes: { sign: RECIPIENT_TYPES[0], copy: RECIPIENT_TYPES[1] },
    reminders: { '12': REMINDER_LABELS[12], '24': REMINDER_LABELS[24], '48': REMINDER_LABELS[48] },
    fieldKinds: { ...FIELD_KIND_LABELS },
  },
  console: ConsoleTexts,
};

/** What every language of the console gives: the same keys as English, every one a text. */
export type ConsoleCatalogue = TextTree<typeof consoleCatalogue>;

type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];

/** A key of the console's catalogue ('esign.inviteSent', 'console.requests.cancel', …). */
export type TextKey = Leaves<ConsoleCatalogue>;

/**
 * English text → its key ('Request has been successfully saved' → 'esign.requestSaved'), for texts that reach a page
 * as text (a check's message, an API answer, a contract constant shown as it is). The first key of a text wins; a text
 * with marks matches only as written, unfilled.
 */
const KEY_OF_TEXT = new Map<string, TextKey>();
const index = (tree: object, prefix: string) => {
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') {
      if (!KEY_OF_TEXT.has(value)) KEY_OF_TEXT.set(value, `${prefix}${key}` as TextKey);
    } else if (value && typeof value === 'object') index(value, `${prefix}${key}.`);
  }
};
index(consoleCatalogue, '');

export const keyOfText = (text: string): TextKey | undefined => KEY_OF_TEXT.get(text);
