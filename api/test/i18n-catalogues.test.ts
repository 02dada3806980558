import {
  CATALOGUES,
  FIELD_KIND_LABELS,
  FIELD_PATTERNS,
  FieldMessages,
  Messages,
  RECIPIENT_LANGUAGES,
  RecipientMessages,
  SignerTexts,
  catalogueOf,
  catalogueProblems,
  en,
  fillText,
  loadCatalogue,
  placeholdersOf,
  textOf,
  translateKnown,
  type Catalogue,
  type RecipientLanguage,
} from '@esign/contract';
import { SCRIPT_OF } from './support/scripts';

/**
 * The recipient side's catalogues (issue 22): one per language of RECIPIENT_LANGUAGES, each with exactly the English
 * catalogue's keys and, in each text, exactly its placeholders; English word for word the contract's constants.
 */

/** Texts that are names, codes or values only in every language (no word to translate). */
const SCRIPTLESS = new Set(['page.methodDsc', 'page.refAndRequest', 'mail.senderAndOrg']);

const texts = (catalogue: Catalogue): [string, string][] =>
  Object.entries(catalogue).flatMap(([section, entries]) =>
    Object.entries(entries as Record<string, string>).map(([key, text]): [string, string] => [
      `${section}.${key}`,
      text,
    ]),
  );

describe('recipient catalogues', () => {
  it('has one catalogue per recipient language', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...RECIPIENT_LANGUAGES].sort());
  });

  it.each(RECIPIENT_LANGUAGES.map((l) => [l]))(
    '%s has every key of English, no other, with the same placeholders',
    (l) => {
      expect(catalogueProblems(en, CATALOGUES[l])).toEqual([]);
    },
  );

  it.each(RECIPIENT_LANGUAGES.filter((l) => l !== 'en').map((l) => [l]))('%s is written in its own script', (l) => {
    const script = SCRIPT_OF[l as Exclude<RecipientLanguage, 'en'>];
    const latinOnly = texts(CATALOGUES[l])
      .filter(([, text]) => !script.test(text))
      .map(([key]) => key);
    expect(latinOnly.filter((key) => !SCRIPTLESS.has(key))).toEqual([]);
    // Not English left in place: every text but the names and codes differs from the English one.
    const english = new Map(texts(en));
    const same = texts(CATALOGUES[l]).filter(([key, text]) => text === english.get(key) && !SCRIPTLESS.has(key));
    expect(same).toEqual([]);
  });

  it("English is the contract's texts word for word", () => {
    const { dscSteps, ...signerTexts } = SignerTexts;
    for (const [key, text] of Object.entries(signerTexts)) expect(en.page[key as keyof typeof en.page]).toBe(text);
    expect([en.page.dscStep1, en.page.dscStep2, en.page.dscStep3, en.page.dscStep4]).toEqual(dscSteps);
    for (const [key, text] of Object.entries(en.messages)) expect(text).toBe(Messages[key as keyof typeof Messages]);
    for (const [key, text] of Object.entries(en.server))
      expect(text).toBe(RecipientMessages[key as keyof typeof RecipientMessages]);
    for (const [key, text] of Object.entries(en.fields))
      if (key in FieldMessages) expect(text).toBe(FieldMessages[key as keyof typeof FieldMessages]);
    expect(en.fields.kindDate).toBe(FIELD_KIND_LABELS.date);
    expect(en.fields.patternGSTIN).toBe(FIELD_PATTERNS.GSTIN.message);
  });

  it('finds a missing key, an extra key and a dropped or changed placeholder', () => {
    const page = { ...CATALOGUES.hi.page } as Record<string, string>;
    delete page.accept;
    page.unknownKey = 'x';
    page.statusCompleted = 'हस्ताक्षर हो चुके हैं।';
    page.failedTitle = '{method} आधारित eSign विफल!';
    const broken = { ...CATALOGUES.hi, page, extra: {} };
    expect(catalogueProblems(en, broken)).toEqual([
      'section extra is not in the English catalogue',
      'page.unknownKey is not in the English catalogue',
      'page.accept is missing',
      'page.statusCompleted has the placeholders {} instead of {date}',
      'page.failedTitle has the placeholders {method} instead of {signType}',
    ]);
    const { mail: _mail, ...withoutMail } = CATALOGUES.ta;
    expect(catalogueProblems(en, withoutMail)).toEqual(['section mail is missing']);
  });

  it('fills texts and reads their placeholders', () => {
    expect(placeholdersOf(en.fields.requiredLeft)).toEqual(['m', 'n']);
    expect(textOf(CATALOGUES.hi, 'page.pageOfTotal', { page: 2, total: 9 })).toBe('पृष्ठ 2/9');
    expect(fillText('{a} and {b}', { a: 1 })).toBe('1 and {b}');
    expect(catalogueOf('ta')).toBe(CATALOGUES.ta);
    expect(catalogueOf('xx')).toBe(en);
    expect(catalogueOf(null)).toBe(en);
  });

  it("puts the API's English answers into the page's language", () => {
    const { hi, ta } = CATALOGUES;
    expect(translateKnown(en, hi, RecipientMessages.notYourTurn)).toBe(hi.server.notYourTurn);
    expect(translateKnown(en, ta, fillText(RecipientMessages.otpResendWait, { seconds: 27 }))).toBe(
      fillText(ta.server.otpResendWait, { seconds: 27 }),
    );
    // A field's kind name is given in the language's words; the sender's own label stays as it was written.
    expect(translateKnown(en, hi, fillText(FieldMessages.required, { label: FIELD_KIND_LABELS.date }))).toBe(
      fillText(hi.fields.required, { label: hi.fields.kindDate }),
    );
    expect(translateKnown(en, hi, fillText(FieldMessages.required, { label: 'PAN number' }))).toBe(
      fillText(hi.fields.required, { label: 'PAN number' }),
    );
    expect(translateKnown(en, hi, Messages.internalError)).toBe(hi.messages.internalError);
    // What the catalogue does not know (a remark, a name) is shown as it is; English stays English.
    expect(translateKnown(en, hi, 'Wrong amount on page 2')).toBe('Wrong amount on page 2');
    expect(translateKnown(en, en, RecipientMessages.notYourTurn)).toBe(RecipientMessages.notYourTurn);
  });

  it('loads a catalogue when asked (the signer app: a chunk per language)', async () => {
    await expect(loadCatalogue('kn')).resolves.toBe(CATALOGUES.kn);
    await expect(loadCatalogue('en')).resolves.toBe(en);
  });
});
