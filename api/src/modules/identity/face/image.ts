import type { FaceImage } from '@esign/contract';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** Decodes a PNG or JPEG (already size-checked) into RGBA bytes for the face models. */
export function decodeImage(bytes: Buffer): FaceImage {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    const png = PNG.sync.read(bytes);
    return { data: png.data, width: png.width, height: png.height, channels: 4 };
  }
  const image = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: false,
    maxResolutionInMP: 25,
    maxMemoryUsageInMB: 256,
  });
  return { data: image.data, width: image.width, height: image.height, channels: 3 };
}
