import { deflateSync } from 'node:zlib';
import { crc32 } from '../../backend/attachments/image-header.js';

/** Real files made in the tests: every decoder (browsers, pdf.js, providers) reads them. */

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** An RGB PNG of one colour, or of the colour `pixel(x, y)` returns; correct CRCs throughout. */
export function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number] = () => [40, 120, 200],
): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      rows[row + 1 + x * 3] = r;
      rows[row + 2 + x * 3] = g;
      rows[row + 3 + x * 3] = b;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A baseline greyscale JPEG of one mid-grey, any size: every 8×8 block is "DC difference 0, end of
 * block", coded with one-symbol Huffman tables (two bits a block). `padding` bytes of an APP1 (EXIF
 * position) come before the frame header, as cameras write them.
 */
export function makeJpeg(width: number, height: number, padding = 0): Buffer {
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const app0 = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const app1: Buffer[] = [];
  for (let left = padding; left > 0; left -= 60_000) app1.push(segment(0xe1, Buffer.alloc(Math.min(left, 60_000), 0x20)));
  const dqt = segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)]));
  const sof = Buffer.alloc(9);
  sof[0] = 8;
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  sof[5] = 1; // one component
  sof[6] = 1;
  sof[7] = 0x11;
  sof[8] = 0;
  const sof0 = segment(0xc0, sof);
  // One code of length 1 per table: DC symbol 0 (no difference), AC symbol 0 (end of block).
  const table = (cls: number) => Buffer.concat([Buffer.from([cls << 4]), Buffer.from([1, ...Array(15).fill(0)]), Buffer.from([0])]);
  const dht = Buffer.concat([segment(0xc4, table(0)), segment(0xc4, table(1))]);
  const sos = segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0]));
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = blocks * 2;
  const data = Buffer.alloc(Math.ceil(bits / 8), 0);
  if (bits % 8) data[data.length - 1] = 0xff >> (bits % 8); // pad with 1 bits
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, ...app1, dqt, sof0, dht, sos, data, Buffer.from([0xff, 0xd9])]);
}

/** A one-page PDF (Helvetica) showing `phrase`; byte offsets in the xref table are exact. */
export function makePdf(phrase: string, pages = 1): Buffer {
  const objects: string[] = [];
  const kids = Array.from({ length: pages }, (_, i) => `${3 + i * 2} 0 R`).join(' ');
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  const fontId = 3 + pages * 2;
  for (let i = 0; i < pages; i++) {
    const text = pages === 1 ? phrase : `${phrase} (page ${i + 1})`;
    const stream = `BT /F1 18 Tf 72 720 Td (${text.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  }
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A GIF header of the given size (enough for type detection; not a drawable image). */
export function gifHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return Buffer.concat([b, Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b])]);
}

/** A lossless WebP (VP8L) header of the given size. */
export function webpHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write('WEBPVP8L', 8, 'latin1');
  b.writeUInt32LE(9, 16);
  b[20] = 0x2f;
  b.writeUInt32LE((width - 1) | ((height - 1) << 14), 21);
  return b;
}

export const UTF8_CODE = `// 计算斐波那契数列 — naïve but exact\nexport function fib(n: number): number {\n  return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\nconsole.log('π ≈', Math.PI, '😀');\n`;
