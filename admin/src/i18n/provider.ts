import { CONSOLE_LANGUAGES, LANGUAGE_NAMES } from '@esign/contract';
import type { ConsoleLanguage } from '@esign/contract';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import type { I18nProvider, TranslationMessages } from 'react-admin';
import { LANGUAGE_KEY } from '../session';
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

const polyglot = polyglotI18nProvider(
  (locale) => CATALOGUES[isConsoleLanguage(locale) ? locale : 'en'],
  storedLanguage(),
  CONSOLE_LANGUAGES.map((locale) => ({ locale, name: LANGUAGE_NAMES[locale] })),
);
document.documentElement.lang = storedLanguage();

/**
 * react-admin's i18nProvider over Polyglot: English (react-admin's texts and the specification's, word for word) and
 * Hindi. The language chosen in the top bar is remembered in this browser.
 */
export const i18nProvider: I18nProvider = {
  ...polyglot,
  changeLocale: async (locale: string) => {
    const language = isConsoleLanguage(locale) ? locale : 'en';
    await polyglot.changeLocale(language);
    remember(language);
  },
};
