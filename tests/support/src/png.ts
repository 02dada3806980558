import { PNG } from 'pngjs';

/**
 * An RGBA PNG drawn by `paint(x, y)` → [r, g, b, a] (alpha 255 when left out), written as a signature pad's canvas
 * writes it: no scanline filter, default deflate (so noise stays about as large as its pixels, for the size limits).
 */
export function makePng(width: number, height: number, paint: (x: number, y: number) => number[]): Buffer {
  const png = new PNG({ width, height, colorType: 6 });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b, a = 255] = paint(x, y);
      png.data.set([r, g, b, a], (y * width + x) * 4);
    }
  return PNG.sync.write(png, { colorType: 6, filterType: 0 });
}

/** A decoded PNG: `channels` bytes per pixel (pngjs gives RGBA, 4). */
export interface DecodedPng {
  width: number;
  height: number;
  channels: 4;
  pixels: Buffer;
}

/** Any PNG (pdftoppm's, a browser's, ours) as RGBA pixels. */
export function decodePng(bytes: Buffer): DecodedPng {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, channels: 4, pixels: png.data };
}

/**
 * A drawn-looking signature: a dark wave on a transparent background, like the signature pad sends.
 * `width`×`height` (default 120×40); the stroke is `thickness` pixels each side of the wave.
 */
export function signaturePng(width = 120, height = 40, thickness = 3): Buffer {
  const mid = height / 2;
  const amplitude = height * 0.3;
  return makePng(width, height, (x, y) =>
    Math.abs(y - mid - amplitude * Math.sin(x / 10)) < thickness ? [20, 20, 110, 255] : [255, 255, 255, 0],
  );
}

/** A PNG as the data URL the signature pad posts. */
export const pngDataUrl = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;
