import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PDF, type EmbeddedFont } from '@libpdf/core';

/** The DejaVu Sans faces the generated pages use: they cover Latin, Greek and Cyrillic, unlike the standard 14 fonts. */
export type DejaVuFace = 'regular' | 'bold' | 'oblique';

const FILES: Record<DejaVuFace, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  oblique: 'DejaVuSans-Oblique.ttf',
};

let folder: string | undefined;
const loaded = new Map<DejaVuFace, Uint8Array>();

/** The folder holding the TTF files of the dejavu-fonts-ttf package. */
export function dejaVuFolder(): string {
  folder ??= join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return folder;
}

/**
 * The TTF bytes of one face, read once per process. The same array is handed to every caller, so it must not be
 * modified (PDF.embedFont only reads it).
 */
export function dejaVuFont(face: DejaVuFace): Uint8Array {
  let bytes = loaded.get(face);
  if (!bytes) {
    bytes = new Uint8Array(readFileSync(join(dejaVuFolder(), FILES[face])));
    loaded.set(face, bytes);
  }
  return bytes;
}

/**
 * The Indian scripts DejaVu Sans lacks, each drawn with its Noto Sans face (issue 21: names and values people type in
 * Hindi, Bengali, Tamil…). Unicode script names, as `\p{Script=…}` takes them.
 */
export const INDIC_SCRIPTS = [
  'Devanagari',
  'Bengali',
  'Tamil',
  'Telugu',
  'Gujarati',
  'Kannada',
  'Gurmukhi',
  'Malayalam',
  'Oriya',
] as const;
export type IndicScript = (typeof INDIC_SCRIPTS)[number];

/** A font the generated pages may draw with: a DejaVu face, or the Noto Sans face of an Indian script. */
export type FontKey = DejaVuFace | IndicScript;

const notoLoaded = new Map<IndicScript, Uint8Array>();

/**
 * The TTF bytes of the script's Noto Sans (Regular, from the @expo-google-fonts packages), read once per process; as
 * with dejaVuFont, never to be modified.
 */
export function notoFont(script: IndicScript): Uint8Array {
  let bytes = notoLoaded.get(script);
  if (!bytes) {
    const family = `NotoSans${script}`;
    const pkg = `@expo-google-fonts/noto-sans-${script.toLowerCase()}`;
    const file = join(dirname(require.resolve(`${pkg}/package.json`)), '400Regular', `${family}_400Regular.ttf`);
    bytes = new Uint8Array(readFileSync(file));
    notoLoaded.set(script, bytes);
  }
  return bytes;
}

export const fontBytes = (key: FontKey): Uint8Array =>
  key === 'regular' || key === 'bold' || key === 'oblique' ? dejaVuFont(key) : notoFont(key);

const SCRIPT_TESTS = INDIC_SCRIPTS.map((script) => [script, new RegExp(`^\\p{Script=${script}}`, 'u')] as const);

/** The Indian script a character belongs to, or null (Latin, digits, punctuation, spaces, marks of any script). */
export function indicScriptOf(char: string): IndicScript | null {
  for (const [script, test] of SCRIPT_TESTS) if (test.test(char)) return script;
  return null;
}

const embedded = new WeakMap<PDF, Map<FontKey, EmbeddedFont>>();

/**
 * The font embedded in `pdf`, once per document: the stamp, the fields and the certificate of one revision share it
 * (one subset per face, not one per caller). Embedded on first use only, so a revision carries just the faces it
 * draws with.
 */
export function fontIn(pdf: PDF, key: FontKey): EmbeddedFont {
  let fonts = embedded.get(pdf);
  if (!fonts) {
    fonts = new Map();
    embedded.set(pdf, fonts);
  }
  let font = fonts.get(key);
  if (!font) {
    font = pdf.embedFont(fontBytes(key));
    fonts.set(key, font);
  }
  return font;
}

/** Fonts of a process-wide scratch document, for measuring and encoding text without embedding anything. */
let measuring: PDF | null = null;

/**
 * The font `key` for measuring text and reading its glyph ids (the same ids whichever document embeds the font):
 * parsed once per process. Never embedded anywhere: documents get the shared subsets (shared-fonts.ts) or subsets of
 * their own (revision/canvas.ts).
 */
export const measuringFont = (key: FontKey): EmbeddedFont => fontIn((measuring ??= PDF.create()), key);
