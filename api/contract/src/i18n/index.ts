/**
 * The recipient side's catalogues (issue 22). The API takes them all at once (`CATALOGUES`, for the e-mails and
 * SMS); the signer app has English in its first JavaScript and loads another language's catalogue when it is
 * chosen (`loadCatalogue`: a chunk of its own per language).
 */
import { DEFAULT_LANGUAGE, type RecipientLanguage } from '../languages';
import type { Catalogue } from './catalogue';
import { en } from './en';
import { bn } from './bn';
import { gu } from './gu';
import { hi } from './hi';
import { kn } from './kn';
import { mr } from './mr';
import { ta } from './ta';
import { te } from './te';

export * from './catalogue';
export { en, OTP_VALIDITY_TEXT } from './en';

export const CATALOGUES: Readonly<Record<RecipientLanguage, Catalogue>> = { en, hi, bn, mr, ta, te, gu, kn };

/** The catalogue of a language (English for none or an unknown one). */
export const catalogueOf = (language: string | null | undefined): Catalogue =>
  (CATALOGUES as Record<string, Catalogue>)[language ?? DEFAULT_LANGUAGE] ?? en;

const loaders: Record<Exclude<RecipientLanguage, 'en'>, () => Promise<Catalogue>> = {
  hi: () => import('./hi').then((m) => m.hi),
  bn: () => import('./bn').then((m) => m.bn),
  mr: () => import('./mr').then((m) => m.mr),
  ta: () => import('./ta').then((m) => m.ta),
  te: () => import('./te').then((m) => m.te),
  gu: () => import('./gu').then((m) => m.gu),
  kn: () => import('./kn').then((m) => m.kn),
};

/** A language's catalogue, loaded when asked for (the signer app); English at once. */
export const loadCatalogue = (language: RecipientLanguage): Promise<Catalogue> =>
  language === 'en' ? Promise.resolve(en) : loaders[language]();
