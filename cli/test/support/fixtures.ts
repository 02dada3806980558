import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { REPO } from './api-server';

/** The shared fixtures: shared/ beside the checkout (or $SHARED_DIR), as api/test/support/fixtures.ts finds them. */
export function sharedDir(): string {
  const candidates = [process.env.SHARED_DIR, resolve(REPO, '..', 'shared')].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => existsSync(join(d, 'fixtures')));
  if (!found) throw new Error(`The shared fixtures were not found (looked in ${candidates.join(', ')})`);
  return found;
}

export const fixturePdf = (name = 'normal.pdf'): string => join(sharedDir(), 'fixtures', 'pdfs', name);

/** A small drawn signature (a dark stroke on transparent), as the signature pad posts it: a PNG data URL. */
export function signaturePngDataUrl(): string {
  const [width, height] = [120, 40];
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (Math.abs(y - 20 - 12 * Math.sin(x / 10)) < 3) raw.set([20, 20, 120, 255], y * (width * 4 + 1) + 1 + x * 4);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}
