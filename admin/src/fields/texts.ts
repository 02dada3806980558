import { ConsoleTexts } from '../i18n/texts';

const F = ConsoleTexts.fields;
const filled = (text: string, values: Record<string, string | number>): string =>
  text.replace(/%\{(\w+)\}/g, (_, name: string) => String(values[name]));

/**
 * The field tools' texts in English, for code that is not a component and for the journeys: the catalogue's
 * (i18n/texts.ts, `console.fields`) with their values filled. Components say them with useText(), in the page's
 * language.
 */
export const FieldTexts = {
  ...F,
  paletteFor: (name: string): string => filled(F.paletteFor, { name }),
  addKind: (kind: string): string => filled(F.addKind, { kind }),
  copied: (count: number): string =>
    count === 0 ? F.copiedNone : filled(F.copied.split(' |||| ')[count === 1 ? 0 : 1], { smart_count: count }),
  boxName: (label: string, owner: string): string => filled(F.boxName, { label, owner }),
  roleName: (n: number): string => filled(F.roleName, { n }),
  formFieldValue: (name: string): string => filled(F.formFieldValue, { name }),
};
