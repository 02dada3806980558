import { CONSOLE_LANGUAGES, LANGUAGE_NAMES } from '@esign/contract';
import type { ConsoleLanguage } from '@esign/contract';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import type { I18nProvider, TranslationMessages } from 'react-admin';
import { LANGUAGE_KEY } from '../session';
import { keyOfText } from './catalogue';
import { en } from './en';
import { hi } from './hi';

const CATALOGUES: Record<ConsoleLanguage, TranslationMessages> = { en, hi };

const isConsoleLanguage = (value: unknown): value is ConsoleLanguage =>
  (CONSOLE_LANGUAGES as readonly unknown[]).includes(value);

export const storedLanguage = (): ConsoleLanguage => {
  const value = localStorage.getItem(LANGUAGE_KEY);
  return isConsoleLanguage(value) ? value : 'en';
};

/** Only a language other than English is written (session.ts keeps it through sign-out). */
const remember = (language: ConsoleLanguage): void => {
  if (language === 'en') localStorage.removeItem(LANGUAGE_KEY);
  else localStorage.setItem(LANGUAGE_KEY, language);
  // The page's language, for screen readers, hyphenation and the fonts the browser picks.
  document.documentElement.lang = language;
};

let language: ConsoleLanguage = storedLanguage();

/** A text of the current catalogue by its dotted key, with its %{marks} filled; undefined when there is none. */
function catalogueText(key: string, values: Record<string, unknown>): string | undefined {
  let node: unknown = CATALOGUES[language];
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  if (typeof node !== 'string') return undefined;
  return node.replace(/%\{(\w+)\}/g, (mark, name: string) => (name in values ? String(values[name]) : mark));
}

/**
 * What a text that is not a key becomes: a text of the contract in English (a form check's message, an API answer, a
 * notify() of Messages.x) is shown in the page's language when the catalogue has it (keyOfText); anything else (a
 * value, the API's own words) as it is, without Polyglot's warning.
 */
const onMissingKey = (text: string, values: Record<string, unknown> = {}): string => {
  const key = keyOfText(text);
  return (key && catalogueText(key, values)) ?? text;
};

const polyglot = polyglotI18nProvider(
  (locale) => CATALOGUES[isConsoleLanguage(locale) ? locale : 'en'],
  language,
  CONSOLE_LANGUAGES.map((locale) => ({ locale, name: LANGUAGE_NAMES[locale] })),
  { onMissingKey },
);
document.documentElement.lang = language;

/**
 * react-admin's i18nProvider over Polyglot: English (react-admin's texts and the specification's, word for word) and
 * Hindi. The language chosen in the top bar is remembered in this browser.
 */
export const i18nProvider: I18nProvider = {
  ...polyglot,
  changeLocale: async (locale: string) => {
    const next = isConsoleLanguage(locale) ? locale : 'en';
    await polyglot.changeLocale(next);
    language = next;
    remember(next);
  },
};
