import {
  DEFAULT_LANGUAGE,
  SigningMethod,
  en,
  isRecipientLanguage,
  loadCatalogue,
  pickLanguage,
  textOf,
  translateKnown,
} from '@esign/contract';
import type {
  Catalogue,
  FieldDefinition,
  FieldKind,
  RecipientLanguage,
  SigningMethodCode,
  TextKey,
  TextParams,
} from '@esign/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';

/**
 * The recipient's language (issue 22). Every text of the app comes from the contract's catalogue of the language
 * chosen, in this order: the switch on the page (remembered in localStorage), the language the sender set for this
 * recipient (the reference call's `language`, kept for the tab so the success page after the ESP still knows it),
 * the browser's languages, English. English is in the first JavaScript; another language's catalogue is a chunk of
 * its own, loaded before the first render when it is the one chosen (main.tsx), else when it is switched to.
 */
const CHOSEN_KEY = 'esign:language';
const PARTY_KEY = 'esign:party-language';

const read = (storage: Storage, key: string): RecipientLanguage | null => {
  try {
    const value = storage.getItem(key);
    return isRecipientLanguage(value) ? value : null;
  } catch {
    return null;
  }
};
const write = (storage: Storage, key: string, value: RecipientLanguage): void => {
  try {
    storage.setItem(key, value);
  } catch {
    // Storage refused (a private window's quota): the choice lasts for this page only.
  }
};

/** The language to show, before the request (and so the sender's choice for the party) is known. */
export const initialLanguage = (): RecipientLanguage =>
  read(localStorage, CHOSEN_KEY) ??
  read(sessionStorage, PARTY_KEY) ??
  pickLanguage(typeof navigator !== 'undefined' ? (navigator.languages ?? [navigator.language]) : []);

/** Each signing method's name (spec section 4: Aadhaar 0, DSC 1, e-Signature 2). */
export const METHOD_NAMES: Record<SigningMethodCode, TextKey> = {
  [SigningMethod.Aadhaar]: 'page.methodAadhaar',
  [SigningMethod.DSC]: 'page.methodDsc',
  [SigningMethod.ESignature]: 'page.methodESignature',
};

/** Each field kind's name (issue 21), what a field without its own label is called. */
const KIND_NAMES: Record<FieldKind, TextKey> = {
  signature: 'fields.kindSignature',
  initials: 'fields.kindInitials',
  name: 'fields.kindName',
  date: 'fields.kindDate',
  text: 'fields.kindText',
  number: 'fields.kindNumber',
  checkbox: 'fields.kindCheckbox',
  dropdown: 'fields.kindDropdown',
  radio: 'fields.kindRadio',
  attachment: 'fields.kindAttachment',
};

/** A field's name on the page: the sender's label as written, else its kind's name in the page's language. */
export const fieldName = (t: I18n['t'], field: Pick<FieldDefinition, 'label' | 'kind'>): string =>
  field.label?.trim() || t(KIND_NAMES[field.kind]);

export interface I18n {
  language: RecipientLanguage;
  /** A text of the catalogue, its `{placeholders}` filled. */
  t: (key: TextKey, params?: TextParams) => string;
  /** A text the API or a contract check wrote in English, in the page's language when the catalogue knows it. */
  known: (text: string) => string;
  /** The switch on the page: this language from now on, remembered. */
  choose: (language: RecipientLanguage) => void;
  /** The sender's choice for this recipient (null: none); it counts unless the recipient chose on the page. */
  offerPartyLanguage: (language: RecipientLanguage | null | undefined) => void;
}

const english: I18n = {
  language: DEFAULT_LANGUAGE,
  t: (key, params) => textOf(en, key, params),
  known: (text) => text,
  choose: () => undefined,
  offerPartyLanguage: () => undefined,
};

const I18nContext = createContext<I18n>(english);

export const useI18n = (): I18n => useContext(I18nContext);

export const I18nProvider = ({
  initial,
  children,
}: {
  /** The language and its catalogue as main.tsx loaded them before the first render. */
  initial: { language: RecipientLanguage; catalogue: Catalogue };
  children: ReactNode;
}) => {
  const [shown, setShown] = useState(initial);
  const [wanted, setWanted] = useState<RecipientLanguage>(initial.language);

  useEffect(() => {
    if (wanted === shown.language) return;
    let live = true;
    // Until the chunk is here the page stays in the language it is in (no flash of English).
    loadCatalogue(wanted).then(
      (catalogue) => live && setShown({ language: wanted, catalogue }),
      (error: unknown) => console.error(`The ${wanted} texts could not be loaded:`, error),
    );
    return () => {
      live = false;
    };
  }, [wanted, shown.language]);

  useEffect(() => {
    document.documentElement.lang = shown.language;
  }, [shown.language]);

  const choose = useCallback((language: RecipientLanguage) => {
    write(localStorage, CHOSEN_KEY, language);
    setWanted(language);
  }, []);

  const offerPartyLanguage = useCallback((language: RecipientLanguage | null | undefined) => {
    if (!isRecipientLanguage(language)) return;
    write(sessionStorage, PARTY_KEY, language);
    if (!read(localStorage, CHOSEN_KEY)) setWanted(language);
  }, []);

  const value = useMemo<I18n>(() => {
    const { language, catalogue } = shown;
    return {
      language,
      t: (key, params) => textOf(catalogue, key, params),
      known: (text) => translateKnown(en, catalogue, text),
      choose,
      offerPartyLanguage,
    };
  }, [shown, choose, offerPartyLanguage]);

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
};
