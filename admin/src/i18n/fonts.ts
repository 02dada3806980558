import devanagari400 from '@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-400-normal.woff2';
import devanagari500 from '@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-500-normal.woff2';
import devanagari700 from '@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-700-normal.woff2';

/** The Devanagari block and the marks Hindi text uses with it (Google Fonts' devanagari subset). */
const DEVANAGARI = 'U+0900-097F, U+1CD0-1CF9, U+200C-200D, U+20A8, U+20B9, U+25CC, U+A830-A839, U+A8E0-A8FF';

/** The family the theme names after the Latin fonts: only Devanagari letters are drawn with it. */
export const DEVANAGARI_FAMILY = 'Noto Sans Devanagari';

/**
 * The console's Hindi is drawn with Noto Sans Devanagari shipped in the build (@fontsource/noto-sans-devanagari),
 * never fetched from elsewhere and not left to whatever the computer has (a machine without a Devanagari font would
 * show boxes). The faces cover only the Devanagari range, so English text keeps exactly the fonts it had; the browser
 * loads a file only when a Devanagari letter is on the page.
 */
export function registerFonts(): void {
  if (typeof FontFace === 'undefined' || !document.fonts) return;
  for (const [weight, url] of [
    ['400', devanagari400],
    ['500', devanagari500],
    ['700', devanagari700],
  ] as const)
    document.fonts.add(
      new FontFace(DEVANAGARI_FAMILY, `url(${url}) format('woff2')`, {
        weight,
        style: 'normal',
        display: 'swap',
        unicodeRange: DEVANAGARI,
      }),
    );
}
