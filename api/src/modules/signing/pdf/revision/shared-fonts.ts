import { PDF, type EmbeddedFont, type PdfObject, type PdfRef } from '@libpdf/core';
import { fontBytes, measuringFont, type FontKey } from '../fonts';

/*
 * Shared font subsets (issue 23). Subsetting a font is the dearest thing a revision does (DejaVu Sans: tens of
 * milliseconds to parse and subset, for every signer's revision and every face of the certificate). The text the
 * product draws is almost always Latin (names, dates, the visible signature's lines, the certificate), so each face
 * is subset once per process to a fixed set of characters, and a document embeds that subset once: the first revision
 * that draws with the face puts it in, later revisions of the same job refer to it. Text with a character outside
 * the set gets a subset of its own in its revision, as before (revision/canvas.ts).
 */

/** Unicode ranges each shared subset holds (what the font has of them). */
const LATIN: [number, number][] = [
  [0x20, 0x7e], // Basic Latin
  [0xa0, 0x17f], // Latin-1 Supplement, Latin Extended-A
  [0x2010, 0x2027], // dashes, quotes, bullet, ellipsis
  [0x2030, 0x203a],
  [0x20b9, 0x20b9], // ₹
  [0x2122, 0x2122],
  [0x2190, 0x2193], // arrows
  [0x25cb, 0x25cb], // ○ and ● (radio groups)
  [0x25cf, 0x25cf],
  [0x2713, 0x2713], // ✓ (checkboxes)
];

/** Each Indian script's block, with the digits, spaces and punctuation its runs carry (text-runs.ts). */
const SCRIPT_BLOCKS: Partial<Record<FontKey, [number, number]>> = {
  Devanagari: [0x0900, 0x097f],
  Bengali: [0x0980, 0x09ff],
  Gurmukhi: [0x0a00, 0x0a7f],
  Gujarati: [0x0a80, 0x0aff],
  Oriya: [0x0b00, 0x0b7f],
  Tamil: [0x0b80, 0x0bff],
  Telugu: [0x0c00, 0x0c7f],
  Kannada: [0x0c80, 0x0cff],
  Malayalam: [0x0d00, 0x0d7f],
};

function rangesOf(key: FontKey): [number, number][] {
  const block = SCRIPT_BLOCKS[key];
  return block ? [block, [0x20, 0x40], [0x964, 0x965]] : LATIN;
}

/** One face's shared subset: the characters it holds, and its objects in the document that made it. */
export interface SharedFont {
  key: FontKey;
  chars: Set<number>;
  /** The scratch document holding the subset's objects (the Type0 font at `ref` and what it refers to). */
  source: PDF;
  ref: PdfRef;
}

const made = new Map<FontKey, SharedFont>();

/** The shared subset of `key`, made on first use in this process. */
export function sharedFont(key: FontKey): SharedFont {
  let shared = made.get(key);
  if (!shared) {
    const measure = measuringFont(key);
    const chars = new Set<number>();
    for (const [from, to] of rangesOf(key))
      for (let code = from; code <= to; code++) if (measure.canEncode(String.fromCodePoint(code))) chars.add(code);
    const source = PDF.create();
    const font: EmbeddedFont = source.embedFont(fontBytes(key));
    font.encodeTextToGids(String.fromCodePoint(...chars));
    source.fonts.finalize(true);
    shared = { key, chars, source, ref: font.ref };
    made.set(key, shared);
  }
  return shared;
}

/** Whether every character of `text` is in `key`'s shared subset. */
export function sharedCovers(key: FontKey, text: string): boolean {
  const { chars } = sharedFont(key);
  for (const char of text) if (!chars.has(char.codePointAt(0)!)) return false;
  return true;
}

/** The object a shared subset's reference names, in its source document. */
export function sharedObject(shared: SharedFont, ref: PdfRef): PdfObject | null {
  return shared.source.getObject(ref);
}
