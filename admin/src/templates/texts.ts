import { ConsoleTexts } from '../i18n/texts';

/**
 * The template screens' texts in English (the catalogue's `console.templates`, i18n/texts.ts), for code that is not a
 * component; components say them with useText(), in the page's language.
 */
export const TemplateTexts = {
  ...ConsoleTexts.templates,
  /** The name given to the n-th signature field drawn in the editor. */
  newSignatureField: (n: number): string => ConsoleTexts.templates.newSignatureField.replace('%{n}', String(n)),
};
