import { indicScriptOf, INDIC_SCRIPTS, measuringFont, type DejaVuFace, type FontKey } from './fonts';

/*
 * Text in several scripts on one line, without a shaping engine: each character is drawn with the first font that has
 * it, a run of characters per font, the runs one after the other. DejaVu Sans draws Latin, Greek, Cyrillic and the
 * symbols; the Noto Sans face of an Indian script draws that script's characters. Glyphs come from the fonts' cmaps
 * alone (no conjuncts, no reordered vowel signs): the letters read as typed and the text copies back exactly.
 */

/** Characters drawn with one font. */
export interface TextRun {
  key: FontKey;
  text: string;
}

const measured = measuringFont;

/** Digits, punctuation, spaces and combining marks: they go with the run they are in when its font has them. */
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]/u;
const FORMAT = /^\p{Cf}$/u;

/** Whether `key`'s font has a glyph for `char`. */
export const hasGlyph = (key: FontKey, char: string): boolean => measured(key).canEncode(char);

/** The text as one line: line breaks, tabs and other control characters become single spaces. */
export const oneLine = (text: string): string => text.replace(/[\s\p{Cc}]+/gu, ' ').trim();

/**
 * The runs that draw `text`: `face` (a DejaVu face) for what it has, an Indian script's Noto face for that script, and
 * neutral characters kept in the current run. A character no font has becomes '?' (an invisible format character
 * is dropped), so that what is drawn is what copies out.
 */
export function runsOf(text: string, face: DejaVuFace): TextRun[] {
  const runs: TextRun[] = [];
  let current: TextRun | null = null;
  for (let char of text) {
    const script = indicScriptOf(char);
    let key: FontKey | null = null;
    if (script) key = hasGlyph(script, char) ? script : null;
    else if (current && NEUTRAL.test(char) && hasGlyph(current.key, char)) key = current.key;
    else if (hasGlyph(face, char)) key = face;
    else key = INDIC_SCRIPTS.find((other) => hasGlyph(other, char)) ?? null;
    if (key === null) {
      if (FORMAT.test(char)) continue;
      [char, key] = ['?', face];
    }
    if (current && current.key === key) current.text += char;
    else runs.push((current = { key, text: char }));
  }
  return runs;
}

/** The runs' width at `size` points. */
export const widthOf = (runs: TextRun[], size: number): number =>
  runs.reduce((sum, run) => sum + measured(run.key).widthOfTextAtSize(run.text, size), 0);

/**
 * The extent of a line above and below its baseline per point of size, from the fonts' descriptors (what the
 * /Ascent and /Descent of the embedded fonts say, and so what text extraction reports as a word's box).
 */
export function extentOf(runs: TextRun[]): { ascent: number; descent: number } {
  let ascent = 0;
  let descent = 0;
  for (const key of new Set(runs.map((run) => run.key))) {
    const descriptor = measured(key).descriptor;
    ascent = Math.max(ascent, (descriptor?.ascent ?? 800) / 1000);
    descent = Math.max(descent, -(descriptor?.descent ?? -200) / 1000);
  }
  return { ascent, descent };
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The runs of `text` cut (with an ellipsis) to at most `width` at `size`; as they are when they fit. */
export function truncated(text: string, face: DejaVuFace, size: number, width: number): TextRun[] {
  const whole = runsOf(text, face);
  if (widthOf(whole, size) <= width) return whole;
  const pieces = [...graphemes.segment(text)].map((s) => s.segment);
  while (pieces.length > 0) {
    pieces.pop();
    const runs = runsOf(`${pieces.join('').trimEnd()}…`, face);
    if (widthOf(runs, size) <= width) return runs;
  }
  return [];
}
