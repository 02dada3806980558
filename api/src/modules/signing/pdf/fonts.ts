import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
