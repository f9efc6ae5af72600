import type { ByteSource } from './byte-source.js';

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** A recognised image, or `damaged` when the magic number matched but the header did not parse. */
export type ImageHeader = { mime: ImageMime; width: number; height: number } | { mime: ImageMime; damaged: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 PNG chunks carry (ISO 3309). */
export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function png(head: Buffer): ImageHeader {
  // The first chunk must be IHDR (13 bytes) with a correct CRC: a torn or forged header is refused.
  if (head.length < 33 || head.readUInt32BE(8) !== 13 || head.toString('latin1', 12, 16) !== 'IHDR') {
    return { mime: 'image/png', damaged: 'the PNG header chunk (IHDR) is missing' };
  }
  if (crc32(head.subarray(12, 29)) !== head.readUInt32BE(29)) return { mime: 'image/png', damaged: 'the PNG header checksum is wrong' };
  return { mime: 'image/png', width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

function gif(head: Buffer): ImageHeader {
  if (head.length < 10) return { mime: 'image/gif', damaged: 'the GIF header is cut short' };
  return { mime: 'image/gif', width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
}

function webp(head: Buffer): ImageHeader {
  const damaged = { mime: 'image/webp', damaged: 'the WebP header is damaged' } as const;
  if (head.length < 30) return damaged;
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // Key frame start code, then 14-bit width and height.
    if (head[23] !== 0x9d || head[24] !== 0x01 || head[25] !== 0x2a) return damaged;
    return { mime: 'image/webp', width: head.readUInt16LE(26) & 0x3fff, height: head.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (head[20] !== 0x2f) return damaged;
    const bits = head.readUInt32LE(21);
    return { mime: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    return { mime: 'image/webp', width: head.readUIntLE(24, 3) + 1, height: head.readUIntLE(27, 3) + 1 };
  }
  return damaged;
}

/** Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Walks the JPEG segments to the first start-of-frame (EXIF and ICC segments may come first). */
async function jpeg(source: ByteSource): Promise<ImageHeader> {
  const damaged = { mime: 'image/jpeg', damaged: 'no JPEG frame header was found' } as const;
  let pos = 2;
  for (let segments = 0; segments < 1000 && pos + 4 <= source.size; segments++) {
    const b = await source.read(pos, 10);
    if (b.length < 4 || b[0] !== 0xff) return damaged;
    const marker = b[1];
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pos += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return damaged; // end of image or scan data before any frame
    if (isStartOfFrame(marker)) {
      if (b.length < 9) return damaged;
      return { mime: 'image/jpeg', width: b.readUInt16BE(7), height: b.readUInt16BE(5) };
    }
    pos += 2 + b.readUInt16BE(2);
  }
  return damaged;
}

/** The image type from the magic number, with its size in pixels; undefined when not an image. */
export async function readImageHeader(source: ByteSource, head: Buffer): Promise<ImageHeader | undefined> {
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return png(head);
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return jpeg(source);
  const ascii6 = head.toString('latin1', 0, 6);
  if (ascii6 === 'GIF87a' || ascii6 === 'GIF89a') return gif(head);
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return webp(head);
  return undefined;
}
