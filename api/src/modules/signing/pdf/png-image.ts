import { deflateSync, inflateSync } from 'node:zlib';
import { PdfName, PdfNumber, PdfStream, type PDF, type PdfRef } from '@libpdf/core';

/** An image in a drawing: its object and its size in pixels. */
export interface EmbeddedImage {
  ref: PdfRef;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels of the 8-bit colour types written here: grey, RGB, grey with alpha, RGB with alpha. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };
/** More than a signature image can need (a 4000 × 4000 RGBA image is 64 MB): larger ones go to @libpdf/core. */
const MAX_PIXELS = 16_000_000;

interface PngParts {
  width: number;
  height: number;
  colorType: number;
  idat: Buffer;
}

/**
 * A signer's image (a drawn or uploaded signature) in the drawing of their revision. An 8-bit, non-interlaced PNG
 * without a palette or a transparent colour is written here as @libpdf/core's embedPng writes it (the same
 * dictionaries and the same decoded pixels: an image, and its alpha as an /SMask), but inflated and deflated by
 * Node's zlib: @libpdf/core's JavaScript deflate took 3–4 ms of each signer's revision for a small signature, and
 * grows with the image (issue 23). Any other image (JPEG, palette, 16-bit, interlaced) is @libpdf/core's.
 */
export function embedSignatureImage(scratch: PDF, bytes: Uint8Array): EmbeddedImage {
  const png = pngParts(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const pixels = png && unfiltered(png);
  if (!png || !pixels) return scratch.embedImage(bytes);
  const channels = CHANNELS[png.colorType];
  const hasAlpha = png.colorType === 4 || png.colorType === 6;
  const colors = hasAlpha ? channels - 1 : channels;
  let color = pixels;
  let alpha: Buffer | null = null;
  if (hasAlpha) {
    const count = png.width * png.height;
    color = Buffer.allocUnsafe(count * colors);
    alpha = Buffer.allocUnsafe(count);
    for (let i = 0, at = 0, to = 0; i < count; i++) {
      for (let c = 0; c < colors; c++) color[to++] = pixels[at++];
      alpha[i] = pixels[at++];
    }
  }
  const image = (colorSpace: string, data: Buffer, extra: Record<string, PdfRef> = {}) =>
    scratch.context.register(
      PdfStream.fromDict(
        {
          Type: PdfName.of('XObject'),
          Subtype: PdfName.of('Image'),
          Width: PdfNumber.of(png.width),
          Height: PdfNumber.of(png.height),
          ColorSpace: PdfName.of(colorSpace),
          BitsPerComponent: PdfNumber.of(8),
          Filter: PdfName.of('FlateDecode'),
          ...extra,
        },
        deflateSync(data),
      ),
    );
  const smask: Record<string, PdfRef> = alpha ? { SMask: image('DeviceGray', alpha) } : {};
  const ref = image(colors === 1 ? 'DeviceGray' : 'DeviceRGB', color, smask);
  return { ref, width: png.width, height: png.height };
}

/** The header and the image data of a PNG this file writes itself; null for any other image. */
function pngParts(buf: Buffer): PngParts | null {
  if (buf.length < 33 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  let header: { width: number; height: number; colorType: number } | null = null;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length;) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = at + 8;
    if (data + length + 4 > buf.length) return null;
    if (type === 'IHDR') {
      if (length !== 13) return null;
      const [depth, colorType, compression, filter, interlace] = buf.subarray(data + 8, data + 13);
      if (depth !== 8 || compression !== 0 || filter !== 0 || interlace !== 0 || !(colorType in CHANNELS)) return null;
      header = { width: buf.readUInt32BE(data), height: buf.readUInt32BE(data + 4), colorType };
    } else if (type === 'tRNS' || type === 'PLTE') return null;
    else if (type === 'IDAT') idat.push(buf.subarray(data, data + length));
    else if (type === 'IEND') break;
    at = data + length + 4;
  }
  if (!header || !idat.length || header.width < 1 || header.height < 1) return null;
  if (header.width * header.height > MAX_PIXELS) return null;
  return { ...header, idat: Buffer.concat(idat) };
}

/** The image's pixels, its rows' filters undone (PNG 9.2); null when the data does not inflate to whole rows. */
function unfiltered({ width, height, colorType, idat }: PngParts): Buffer | null {
  const bpp = CHANNELS[colorType];
  const stride = width * bpp;
  let data: Buffer;
  try {
    data = inflateSync(idat, { maxOutputLength: (stride + 1) * height + 1 });
  } catch {
    return null;
  }
  if (data.length < (stride + 1) * height) return null;
  const out = Buffer.alloc(stride * height);
  for (let y = 0, at = 0; y < height; y++) {
    const filter = data[at++];
    const row = y * stride;
    const up = row - stride;
    for (let x = 0; x < stride; x++, at++) {
      const left = x >= bpp ? out[row + x - bpp] : 0;
      const above = y > 0 ? out[up + x] : 0;
      let value: number;
      if (filter === 0) value = data[at];
      else if (filter === 1) value = data[at] + left;
      else if (filter === 2) value = data[at] + above;
      else if (filter === 3) value = data[at] + ((left + above) >> 1);
      else if (filter === 4) {
        const corner = x >= bpp && y > 0 ? out[up + x - bpp] : 0;
        const p = left + above - corner;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - above), Math.abs(p - corner)];
        value = data[at] + (pa <= pb && pa <= pc ? left : pb <= pc ? above : corner);
      } else return null;
      out[row + x] = value & 0xff;
    }
  }
  return out;
}
