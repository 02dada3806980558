import type { BrowserContext, Locator, Page } from '@playwright/test';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a text on a page is drawn with the glyphs of the font the signer app ships for its script (issue 22): the
 * element's pixels against a reference render of the same text, same size, weight and colour, with that font file
 * loaded explicitly, and against a render with the same fonts less that one (a font that lacks the script: boxes).
 */

const ASSETS = path.join(__dirname, '..', '..', '..', 'signer-web', 'dist', 'signer-assets');

/** A shipped font face: its file and the characters the app's CSS gives it (unicode-range). */
export interface ShippedFont {
  file: string;
  unicodeRange: string;
}

/**
 * The shipped font file of a script and weight as the build named it (signer-web/dist/signer-assets/…woff2), and its
 * unicode-range as the built CSS declares it (the reference render takes the same characters from it, no more).
 */
export function shippedFont(script: string, weight: 400 | 600): ShippedFont {
  const prefix = `noto-sans-${script}-${script}-${weight}-normal-`;
  const file = readdirSync(ASSETS).find((f) => f.startsWith(prefix) && f.endsWith('.woff2'));
  if (!file) throw new Error(`no ${prefix}*.woff2 in ${ASSETS}: build signer-web first`);
  const css = readdirSync(ASSETS)
    .filter((f) => f.endsWith('.css'))
    .map((f) => readFileSync(path.join(ASSETS, f), 'utf8'))
    .join('\n');
  const face = css.split('@font-face').find((rule) => rule.includes(file));
  const unicodeRange = /unicode-range:\s*([^;}]+)/.exec(face ?? '')?.[1]?.trim();
  if (!unicodeRange) throw new Error(`the built CSS declares no unicode-range for ${file}`);
  return { file: path.join(ASSETS, file), unicodeRange };
}

/** What is compared of two renders: the ink (dark pixels), cropped to its box. */
export interface InkComparison {
  /** Width and height of each render's ink. */
  page: [number, number];
  other: [number, number];
  /**
   * Share of the compared pixels whose darkness differs by more than a quarter from every pixel at most one pixel
   * away in the other render (0: the same picture).
   */
  difference: number;
}

/** Compares the ink of two PNG screenshots in the browser (a canvas each): sizes, then pixel by pixel. */
async function compareInk(page: Page, a: Buffer, b: Buffer): Promise<InkComparison> {
  return page.evaluate(
    async ([first, second]) => {
      const ink = async (b64: string) => {
        const image = new Image();
        image.src = `data:image/png;base64,${b64}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
        ctx.drawImage(image, 0, 0);
        const { data, width, height } = ctx.getImageData(0, 0, image.width, image.height);
        const dark = (x: number, y: number) => {
          const i = (y * width + x) * 4;
          return 255 - (data[i] + data[i + 1] + data[i + 2]) / 3;
        };
        let [top, left, bottom, right] = [height, width, -1, -1];
        for (let y = 0; y < height; y++)
          for (let x = 0; x < width; x++)
            if (dark(x, y) > 96) {
              top = Math.min(top, y);
              bottom = Math.max(bottom, y);
              left = Math.min(left, x);
              right = Math.max(right, x);
            }
        return { dark, top, left, w: right - left + 1, h: bottom - top + 1 };
      };
      const [p, o] = [await ink(first), await ink(second)];
      const w = Math.min(p.w, o.w);
      const h = Math.min(p.h, o.h);
      // A pixel differs when no pixel at most one away in the other render is close to it: text drawn at another
      // fraction of a pixel shifts its anti-aliasing, a different glyph (or a box) does not line up at all.
      const near = (from: typeof p, to: typeof o, x: number, y: number) => {
        const value = from.dark(from.left + x, from.top + y);
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const [tx, ty] = [x + dx, y + dy];
            if (tx < 0 || ty < 0 || tx >= w || ty >= h) continue;
            if (Math.abs(value - to.dark(to.left + tx, to.top + ty)) <= 64) return true;
          }
        return false;
      };
      let differing = 0;
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (!near(p, o, x, y) || !near(o, p, x, y)) differing++;
      return {
        page: [p.w, p.h] as [number, number],
        other: [o.w, o.h] as [number, number],
        difference: w > 0 && h > 0 ? differing / (w * h) : 1,
      };
    },
    [a.toString('base64'), b.toString('base64')] as const,
  );
}

/**
 * Renders `text` in a page of its own with the element's font size, weight, line height and colour: with `font` as
 * the family's script font (the reference), or without it (only fonts that lack the script). Saves the shot.
 */
async function render(
  context: BrowserContext,
  text: string,
  style: { fontSize: string; fontWeight: string; lineHeight: string; color: string; x: number; y: number },
  font: ShippedFont | null,
  shotPath: string,
): Promise<Buffer> {
  const page = await context.newPage();
  const face = font
    ? `@font-face { font-family: 'Reference'; font-weight: ${style.fontWeight}; unicode-range: ${font.unicodeRange};
         src: url(data:font/woff2;base64,${readFileSync(font.file).toString('base64')}) format('woff2'); }`
    : '';
  const family = font ? `'Roboto', 'Helvetica', 'Arial', 'Reference', sans-serif` : `'DejaVu Sans'`;
  await page.setContent(
    `<!doctype html><html><head><style>${face}
      body { margin: ${16 + style.y}px 0 0 ${16 + style.x}px; background: #fff; }
      span { font-family: ${family}; font-size: ${style.fontSize}; font-weight: ${style.fontWeight};
        line-height: ${style.lineHeight}; color: ${style.color}; white-space: pre; }
    </style></head><body><span id="text"></span></body></html>`,
  );
  await page.locator('#text').evaluate((el, value) => (el.textContent = value), text);
  await page.evaluate(() => document.fonts.ready);
  const shot = await page.locator('#text').screenshot({ path: shotPath });
  await page.close();
  return shot;
}

/**
 * The element's text against the reference render with the shipped font and the render without it; the three
 * screenshots are saved under `dir` with `name`.
 */
export async function glyphCheck(
  element: Locator,
  font: ShippedFont,
  dir: string,
  name: string,
): Promise<{ reference: InkComparison; withoutFont: InkComparison }> {
  const page = element.page();
  await page.evaluate(() => document.fonts.ready);
  const text = (await element.textContent()) ?? '';
  const style = await element.evaluate((el) => {
    const s = getComputedStyle(el);
    // Where the text starts within a pixel: the reference starts there too, so both are anti-aliased alike.
    const range = document.createRange();
    range.selectNodeContents(el);
    const { left, top } = range.getBoundingClientRect();
    const [x, y] = [left - Math.floor(left), top - Math.floor(top)];
    return { fontSize: s.fontSize, fontWeight: s.fontWeight, lineHeight: s.lineHeight, color: s.color, x, y };
  });
  const shot = await element.screenshot({ path: path.join(dir, `${name}-page.png`) });
  const reference = await render(page.context(), text, style, font, path.join(dir, `${name}-reference.png`));
  const without = await render(page.context(), text, style, null, path.join(dir, `${name}-without-font.png`));
  return { reference: await compareInk(page, shot, reference), withoutFont: await compareInk(page, shot, without) };
}
