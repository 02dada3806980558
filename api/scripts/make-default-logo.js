// Draws assets/default-logo.png (the logo served for organisations without one): a purple rounded square with a
// white tick. The apps show it at most 48 CSS pixels tall (the signer app's bar, the console's client layout; 32 in the
// console's top bar), so it is drawn at 144 × 144 pixels: sharp at 3× pixel density (issue 18, point 16). The shapes
// are described on the 48-unit grid of the first version and anti-aliased by 4 × 4 samples per pixel.
// Run once after a change: node scripts/make-default-logo.js
const { deflateSync, crc32 } = require('node:zlib');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const UNITS = 48;
const SCALE = 3;
const SIZE = UNITS * SCALE;
const SAMPLES = 4;
const purple = [94, 53, 177];
const white = [255, 255, 255];

/** Inside the rounded square (corner radius 10 units), in units. */
const inRounded = (x, y, r = 10) => {
  const cx = Math.min(Math.max(x, r), UNITS - r);
  const cy = Math.min(Math.max(y, r), UNITS - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const distToSegment = (x, y, [x1, y1], [x2, y2]) => {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (x1 + t * dx), y - (y1 + t * dy));
};
/** On the tick: two strokes 6.4 units wide with round ends and joint. */
const onTick = (x, y) =>
  Math.min(distToSegment(x, y, [13, 25], [21, 33]), distToSegment(x, y, [21, 33], [36, 15])) < 3.2;

const stride = SIZE * 4 + 1;
const px = Buffer.alloc(stride * SIZE);
for (let y = 0; y < SIZE; y++) {
  px[y * stride] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    let inside = 0;
    let tick = 0;
    for (let sy = 0; sy < SAMPLES; sy++)
      for (let sx = 0; sx < SAMPLES; sx++) {
        const ux = (x + (sx + 0.5) / SAMPLES) / SCALE;
        const uy = (y + (sy + 0.5) / SAMPLES) / SCALE;
        if (!inRounded(ux, uy)) continue;
        inside++;
        if (onTick(ux, uy)) tick++;
      }
    if (!inside) continue;
    // Colour: the tick's share of the covered samples over purple; alpha: the square's coverage.
    const share = tick / inside;
    const o = y * stride + 1 + x * 4;
    for (let c = 0; c < 3; c++) px[o + c] = Math.round(purple[c] * (1 - share) + white[c] * share);
    px[o + 3] = Math.round((255 * inside) / (SAMPLES * SAMPLES));
  }
}
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(px, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(join(__dirname, '..', 'assets', 'default-logo.png'), png);
console.log(`wrote assets/default-logo.png (${SIZE}x${SIZE}, ${png.length} bytes)`);
