// Draws assets/default-logo.png (the logo served for organisations without one): a purple rounded square with a
// white tick, 160x48 with the word-free mark on the left. Run once: node scripts/make-default-logo.js
const { deflateSync, crc32 } = require('node:zlib');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const W = 48,
  H = 48,
  purple = [94, 53, 177];
const px = Buffer.alloc((W * 4 + 1) * H);
const inRounded = (x, y, r) => {
  const cx = Math.min(Math.max(x, r), W - 1 - r),
    cy = Math.min(Math.max(y, r), H - 1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const distToSegment = (x, y, [x1, y1], [x2, y2]) => {
  const dx = x2 - x1,
    dy = y2 - y1,
    t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (x1 + t * dx), y - (y1 + t * dy));
};
for (let y = 0; y < H; y++) {
  px[y * (W * 4 + 1)] = 0;
  for (let x = 0; x < W; x++) {
    const o = y * (W * 4 + 1) + 1 + x * 4;
    if (!inRounded(x, y, 10)) continue;
    const tick = Math.min(distToSegment(x, y, [13, 25], [21, 33]), distToSegment(x, y, [21, 33], [36, 15]));
    const c = tick < 3.2 ? [255, 255, 255] : purple;
    px[o] = c[0];
    px[o + 1] = c[1];
    px[o + 2] = c[2];
    px[o + 3] = 255;
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
ihdr.writeUInt32BE(W, 0);
ihdr.writeUInt32BE(H, 4);
ihdr[8] = 8;
ihdr[9] = 6;
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(px)),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(join(__dirname, '..', 'assets', 'default-logo.png'), png);
console.log(`wrote assets/default-logo.png (${png.length} bytes)`);
