import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bufferSource } from '../../backend/attachments/byte-source.js';
import { detectAttachment } from '../../backend/attachments/detect-type.js';
import { sniffMarkup } from '../../backend/attachments/markup-sniff.js';
import { extractPdfText, scanPageObjects } from '../../backend/attachments/pdf-text.js';
import { cleanFileName } from '../../backend/attachments/attachment-store.js';
import { gifHeader, makeJpeg, makePdf, makePng, UTF8_CODE, webpHeader } from '../helpers/test-files.js';

const detect = (bytes: Uint8Array | string) => detectAttachment(bufferSource(typeof bytes === 'string' ? Buffer.from(bytes) : bytes));

describe('attachment type detection (from the bytes only)', () => {
  test('the four image types, with their size in pixels', async () => {
    assert.deepEqual(await detect(makePng(31, 17)), { ok: true, kind: 'image', mime: 'image/png', width: 31, height: 17 });
    assert.deepEqual(await detect(makeJpeg(640, 480)), { ok: true, kind: 'image', mime: 'image/jpeg', width: 640, height: 480 });
    assert.deepEqual(await detect(gifHeader(20, 10)), { ok: true, kind: 'image', mime: 'image/gif', width: 20, height: 10 });
    assert.deepEqual(await detect(webpHeader(300, 200)), { ok: true, kind: 'image', mime: 'image/webp', width: 300, height: 200 });
  });

  test('a JPEG whose frame header comes after 150 KB of EXIF is still measured', async () => {
    assert.deepEqual(await detect(makeJpeg(1200, 900, 150_000)), { ok: true, kind: 'image', mime: 'image/jpeg', width: 1200, height: 900 });
  });

  test('a PNG with a forged header checksum is refused as damaged', async () => {
    const png = makePng(4, 4);
    png[20] ^= 0xff; // change the height without fixing the CRC
    const r = await detect(png);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /damaged PNG image.*checksum/);
  });

  test('images over 8000 px a side are refused with the limit named', async () => {
    const r = await detect(makePng(8001, 1));
    assert.deepEqual(r.ok ? r : { code: r.code, limit: /8000 pixels/.test(r.message) }, { code: 'attachment_too_large', limit: true });
    assert.equal((await detect(gifHeader(8000, 8000))).ok, true);
  });

  test('a PDF with its page count; several pages counted', async () => {
    assert.deepEqual(await detect(makePdf('Quarterly llama census')), { ok: true, kind: 'pdf', mime: 'application/pdf', pages: 1 });
    assert.deepEqual(await detect(makePdf('x', 3)), { ok: true, kind: 'pdf', mime: 'application/pdf', pages: 3 });
    assert.equal(await scanPageObjects(bufferSource(makePdf('x', 3))), 3);
  });

  test('the PDF library reads back the known phrase', async () => {
    const { pages, text } = await extractPdfText(makePdf('Quarterly llama census'));
    assert.equal(pages, 1);
    assert.match(text, /Quarterly llama census/);
  });

  test('a file that only starts like a PDF is refused', async () => {
    const r = await detect('%PDF-1.7\nnothing here\n');
    assert.equal(r.ok ? 'ok' : r.detected, 'damaged PDF document');
  });

  test('UTF-8 code is text; other encodings and binaries are named', async () => {
    assert.deepEqual(await detect(UTF8_CODE), { ok: true, kind: 'text', mime: 'text/plain' });
    assert.deepEqual(await detect('a,b\n1,2\n'), { ok: true, kind: 'text', mime: 'text/plain' });
    const latin1 = Buffer.from('caf\xe9 cr\xe8me', 'latin1');
    assert.equal((await detect(latin1)).ok, false);
    const named = async (bytes: Buffer) => {
      const r = await detect(bytes);
      return r.ok ? 'accepted' : r.detected;
    };
    assert.equal(await named(Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1')), 'ZIP archive (or an Office document)');
    assert.equal(await named(Buffer.from('\x7fELF\x02\x01\x01\x00\x00\x00\x00', 'latin1')), 'ELF executable');
    assert.equal(await named(Buffer.from([0xff, 0xfe, 0x41, 0x00])), 'UTF-16 text');
    assert.equal(await named(Buffer.from([1, 2, 3, 0, 0xff, 0x80])), 'binary data of an unknown type');
    assert.equal(await named(Buffer.alloc(0)), 'empty file');
  });

  test('text over 2 MiB is refused with the limit named', async () => {
    const r = await detect('x'.repeat(2 * 1024 * 1024 + 1));
    assert.equal(r.ok ? 'ok' : r.code, 'attachment_too_large');
    assert.match(r.ok ? '' : r.message, /2 MiB/);
  });

  test('text that turns binary after the first 64 KiB is refused', async () => {
    const r = await detect(Buffer.concat([Buffer.alloc(70_000, 'a'), Buffer.from([0xc3, 0x28])]));
    assert.equal(r.ok, false);
  });

  test('HTML and SVG are refused even though they are UTF-8', async () => {
    assert.equal(sniffMarkup('<!DOCTYPE html><p>hi'), 'HTML document');
    assert.equal(sniffMarkup('\uFEFF  <!-- x --> <html lang="en">'), 'HTML document');
    assert.equal(sniffMarkup('<script>alert(1)</script>'), 'HTML document');
    assert.equal(sniffMarkup('<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg>'), 'SVG image');
    assert.equal(sniffMarkup('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'SVG image');
    assert.equal(sniffMarkup('<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>'), 'SVG image');
    // Markdown that opens with a centred block, XML data, and code stay text.
    assert.equal(sniffMarkup('<div align="center">\n\n# Title\n'), undefined);
    assert.equal(sniffMarkup('<?xml version="1.0"?><project><name>x</name></project>'), undefined);
    assert.equal(sniffMarkup(UTF8_CODE), undefined);
    const r = await detect('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    assert.deepEqual(r.ok ? r : [r.code, r.detected], ['unsupported_attachment', 'SVG image']);
  });

  test('file names lose any path and control characters', () => {
    assert.equal(cleanFileName('../../etc/passwd'), 'passwd');
    assert.equal(cleanFileName('C:\\Users\\me\\shot.png'), 'shot.png');
    assert.equal(cleanFileName('a\u0000b\nc.txt'), 'abc.txt');
    assert.equal(cleanFileName('..'), 'attachment');
    assert.equal(cleanFileName('报告.pdf'), '报告.pdf');
    assert.equal(Array.from(cleanFileName('é'.repeat(400))).length, 255);
  });
});
