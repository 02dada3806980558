import { Limits, Messages, RecipientMessages } from '@esign/contract';
import { PDF } from '@libpdf/core';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { AppError } from '../../../common/app-error';

export type ImageFormat = 'png' | 'jpeg';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Spec section 5: png or jpeg with a single dot in the name. */
const IMAGE_NAME = /^[^.]+\.(png|jpe?g)$/i;
const MAX_SIDE = 4096;
/** MAX_SIDE squared, in megapixels, rounded up. */
const MAX_DECODED_MP = Math.ceil((MAX_SIDE * MAX_SIDE) / 1e6);

/** PNG or JPEG by content, never by name or declared type. */
export function sniffImage(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 24 && Buffer.from(bytes.subarray(0, 8)).equals(PNG_MAGIC)) return 'png';
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** A data: URL's bytes (base64), or null when the text is not one. */
export function fromDataUrl(text: unknown): Buffer | null {
  if (typeof text !== 'string') return null;
  const match = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(text.trim());
  return match ? Buffer.from(match[3], 'base64') : null;
}

/** Width and height from the PNG header or the first JPEG frame header; null when there is none. */
export function imageSize(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'png') {
    if (b.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  return null;
}

/**
 * Checks an image a signer sends (signature or face capture): PNG or JPEG by content, within the size limit, with
 * sane dimensions, and one the PDF engine can embed (decoded here, so a broken file is refused now with a 4xx rather
 * than failing the seal job later). Answers its format.
 */
export async function checkImage(
  bytes: Buffer,
  opts: { maxBytes: number; tooLarge: string; invalid: string; filename?: string | null },
): Promise<ImageFormat> {
  if (opts.filename !== undefined && opts.filename !== null && !IMAGE_NAME.test(opts.filename.trim()))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', opts.invalid);
  if (bytes.length === 0) throw new AppError('VALIDATION_FAILED', Messages.emptySignaturePad);
  if (bytes.length > opts.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', opts.tooLarge);
  const format = sniffImage(bytes);
  const size = format && imageSize(bytes, format);
  if (!format || !size || size.width < 1 || size.height < 1 || size.width > MAX_SIDE || size.height > MAX_SIDE)
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', opts.invalid);
  try {
    // Decoded in full: the PDF engine embeds a PNG with its IEND missing or a JPEG cut short, and the signature would
    // show broken; pngjs checks each chunk's CRC and the image data, jpeg-js every marker and the scan.
    if (format === 'png') PNG.sync.read(bytes, { checkCRC: true });
    else jpeg.decode(bytes, { useTArray: true, maxResolutionInMP: MAX_DECODED_MP, maxMemoryUsageInMB: 256 });
    PDF.create().embedImage(new Uint8Array(bytes));
  } catch {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', opts.invalid);
  }
  return format;
}

export const checkSignatureImage = (bytes: Buffer, filename?: string | null) =>
  checkImage(bytes, {
    maxBytes: Limits.signatureImageMaxBytes,
    tooLarge: RecipientMessages.signatureTooLarge,
    invalid: Messages.invalidSignatureImage,
    filename,
  });
