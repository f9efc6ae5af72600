// Draws the app icon (a rounded square with a two-arrow "swap" mark) and writes PNGs with zlib only:
// resources/icon.png (1024, mac/win) and resources/icons/512x512.png (Linux). Run: node scripts/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Coverage (0..1) of the icon shape at (x, y) in unit coordinates, and its colour. */
function shade(x, y) {
  const r = 0.2; // corner radius of the rounded square, inset 0.06
  const inset = 0.06;
  const dx = Math.max(inset + r - x, 0, x - (1 - inset - r));
  const dy = Math.max(inset + r - y, 0, y - (1 - inset - r));
  if (Math.hypot(dx, dy) > r) return null;
  // Background: diagonal gradient teal -> indigo.
  const t = (x + y) / 2;
  let rgb = [Math.round(20 + 50 * t), Math.round(160 - 90 * t), Math.round(170 + 60 * t)];
  // Two arrows: upper pointing right, lower pointing left.
  const arrow = (cy, dir) => {
    const shaft = Math.abs(y - cy) < 0.045 && (dir > 0 ? x > 0.22 && x < 0.66 : x > 0.34 && x < 0.78);
    const tipX = dir > 0 ? 0.78 : 0.22;
    const along = dir > 0 ? tipX - x : x - tipX;
    const head = along >= 0 && along < 0.16 && Math.abs(y - cy) < along * 0.9;
    return shaft || head;
  };
  if (arrow(0.38, 1) || arrow(0.62, -1)) rgb = [255, 255, 255];
  return rgb;
}

function png(size) {
  const SS = 3; // supersampling for smooth edges
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let py = 0; py < size; py++) {
    raw[py * (size * 4 + 1)] = 0; // filter: none
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const c = shade((px + (sx + 0.5) / SS) / size, (py + (sy + 0.5) / SS) / size);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const o = py * (size * 4 + 1) + 1 + px * 4;
      raw[o] = a ? Math.round(r / a) : 0;
      raw[o + 1] = a ? Math.round(g / a) : 0;
      raw[o + 2] = a ? Math.round(b / a) : 0;
      raw[o + 3] = Math.round((255 * a) / (SS * SS));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

mkdirSync(path.join(ROOT, 'resources', 'icons'), { recursive: true });
writeFileSync(path.join(ROOT, 'resources', 'icon.png'), png(1024));
writeFileSync(path.join(ROOT, 'resources', 'icons', '512x512.png'), png(512));
console.log('wrote resources/icon.png (1024x1024) and resources/icons/512x512.png');
