import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { send, type Reply } from '../helpers/raw-http.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { makeJpeg, makePdf, makePng, UTF8_CODE } from '../helpers/test-files.js';

const MIB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('attachments: upload and serving (DESIGN 8)', () => {
  let rig: ChatRig;
  let sid: string;
  before(async () => {
    // No turn runs here: the provider is never called.
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: 'http://127.0.0.1:9/v1', models: [model('m1')] }]);
    sid = await rig.newSession('files');
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
  });

  const dir = () => path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid, 'attachments');
  const files = () => readdirSync(dir()).sort();
  const upload = (body: Buffer, name: string, headers: Record<string, string> = {}, session = sid): Promise<Reply> =>
    send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(session)}/attachments`,
      headers: {
        authorization: `Bearer ${rig.credential}`,
        'x-filename': encodeURIComponent(name),
        'content-type': 'application/octet-stream',
        ...headers,
      },
      body,
      timeoutMs: 30_000,
    });
  const download = async (id: string) => {
    const res = await fetch(`${rig.proc.url}${rig.sessionsPath(sid)}/attachments/${id}`, {
      headers: { authorization: `Bearer ${rig.credential}` },
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it('stores a PNG content-addressed (0600, exact bytes, metadata beside) and serves it inline with the defences', async () => {
    const png = makePng(64, 48);
    const up = await upload(png, 'screen shot.png', { 'content-type': 'image/png' });
    assert.equal(up.status, 201, up.text);
    assert.deepEqual(up.json, {
      id: sha(png),
      name: 'screen shot.png',
      mime: 'image/png',
      size: png.length,
      sha256: sha(png),
      kind: 'image',
      width: 64,
      height: 48,
    });
    const file = path.join(dir(), sha(png));
    assert.deepEqual(readFileSync(file), png);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(`${file}.json`, 'utf8')).name, 'screen shot.png');
    const { res, bytes } = await download(up.json.id);
    assert.equal(res.status, 200);
    assert.deepEqual(bytes, png);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('content-security-policy'), 'sandbox');
    assert.equal(res.headers.get('content-disposition'), `inline; filename="screen shot.png"; filename*=UTF-8''screen%20shot.png`);
  });

  it('a JPEG, a PDF with its pages and UTF-8 code: types from the bytes, non-images download', async () => {
    const jpeg = makeJpeg(320, 200);
    assert.deepEqual((await upload(jpeg, 'photo.bin')).json, {
      id: sha(jpeg),
      name: 'photo.bin',
      mime: 'image/jpeg',
      size: jpeg.length,
      sha256: sha(jpeg),
      kind: 'image',
      width: 320,
      height: 200,
    });
    const pdf = makePdf('The llama census of 2026');
    const upPdf = await upload(pdf, 'census.pdf', { 'content-type': 'application/pdf' });
    assert.equal(upPdf.status, 201, upPdf.text);
    assert.equal(upPdf.json.kind, 'pdf');
    assert.equal(upPdf.json.pages, 1);
    const gotPdf = await download(upPdf.json.id);
    assert.equal(gotPdf.res.headers.get('content-type'), 'application/pdf');
    assert.match(gotPdf.res.headers.get('content-disposition') ?? '', /^attachment; filename="census.pdf"/);
    const code = Buffer.from(UTF8_CODE);
    const upCode = await upload(code, '斐波那契.ts', { 'content-type': 'video/mp2t' });
    assert.equal(upCode.status, 201, upCode.text);
    assert.deepEqual(
      [upCode.json.kind, upCode.json.mime, upCode.json.name, upCode.json.size],
      ['text', 'text/plain', '斐波那契.ts', code.length],
    );
    const gotCode = await download(upCode.json.id);
    assert.equal(gotCode.res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(
      gotCode.res.headers.get('content-disposition'),
      `attachment; filename="____.ts"; filename*=UTF-8''${encodeURIComponent('斐波那契.ts')}`,
    );
    assert.equal(gotCode.bytes.toString('utf8'), UTF8_CODE);
  });

  it('a JSON file sent as application/json is stored as the file, not parsed', async () => {
    const json = Buffer.from('{"a": [1, 2, {"b": "ü"}]}\n');
    const up = await upload(json, 'data.json', { 'content-type': 'application/json' });
    assert.equal(up.status, 201, up.text);
    assert.equal(up.json.size, json.length);
    assert.deepEqual((await download(up.json.id)).bytes, json);
  });

  it('hostile: a PNG named .html is a PNG; HTML named .png, SVG with script and a polyglot are refused or defused', async () => {
    const png = makePng(8, 8, (x) => [x * 30, 0, 0]);
    const asHtml = await upload(png, 'index.html', { 'content-type': 'text/html' });
    assert.equal(asHtml.status, 201);
    assert.equal(asHtml.json.mime, 'image/png');
    assert.equal((await download(asHtml.json.id)).res.headers.get('content-type'), 'image/png');

    const before = files();
    const html = await upload(Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script>'), 'cat.png', {
      'content-type': 'image/png',
    });
    assert.equal(html.status, 415);
    assert.equal(html.json.error.code, 'unsupported_attachment');
    assert.match(html.json.error.message, /HTML document/);

    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'logo.svg');
    assert.equal(svg.status, 415);
    assert.match(svg.json.error.message, /SVG image/);

    // HTML with a PNG signature later in it is still HTML.
    const htmlFirst = await upload(Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), png]), 'x.png');
    assert.equal(htmlFirst.status, 415);
    assert.deepEqual(files(), before, 'nothing is kept of a refused upload');

    // A PNG with a page appended after IEND: stored and served as an image, never as a document.
    const polyglot = Buffer.concat([png, Buffer.from('<html><script>alert(1)</script></html>')]);
    const poly = await upload(polyglot, 'poly.html', { 'content-type': 'text/html' });
    assert.equal(poly.status, 201);
    const got = await download(poly.json.id);
    assert.equal(got.res.headers.get('content-type'), 'image/png');
    assert.equal(got.res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(got.res.headers.get('content-security-policy'), 'sandbox');
  });

  it('hostile: a path-like name is only a name; the file lands under its hash', async () => {
    const body = Buffer.from('just text\n');
    const up = await upload(body, '../../../../etc/passwd');
    assert.equal(up.status, 201);
    assert.equal(up.json.name, 'passwd');
    assert.ok(files().includes(sha(body)));
    assert.ok(!readdirSync(path.join(dir(), '..')).includes('passwd'));
    const bad = await send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(sid)}/attachments`,
      headers: { authorization: `Bearer ${rig.credential}`, 'x-filename': '%E0%A4%A' },
      body,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.field, 'X-Filename');
  });

  it('hostile: 20 MiB + 1 is 413, declared or chunked, and nothing is stored', async () => {
    const before = files();
    const big = Buffer.alloc(20 * MIB + 1, 0x61);
    const declared = await upload(big, 'big.txt');
    assert.equal(declared.status, 413);
    assert.equal(declared.json.error.code, 'attachment_too_large');
    assert.match(declared.json.error.message, /20 MiB/);
    const chunked = await upload(big, 'big.txt', { 'transfer-encoding': 'chunked' });
    assert.equal(chunked.status, 413);
    // Refused mid-body (4 MiB past the cap), the answer still reaches the client.
    const over = await upload(Buffer.alloc(24 * MIB, 0x61), 'big.txt', { 'transfer-encoding': 'chunked' });
    assert.equal(over.status, 413);
    assert.deepEqual(files(), before);
    // Exactly 20 MiB passes the cap (and is then refused as text over 2 MiB, with that limit named).
    const atCap = await upload(big.subarray(0, 20 * MIB), 'big.txt');
    assert.equal(atCap.status, 413);
    assert.match(atCap.json.error.message, /Text files may be at most 2 MiB/);
  });

  it('images over 5 MiB or 8000 px a side are refused with the limit named', async () => {
    const wide = await upload(makePng(8001, 2), 'wide.png');
    assert.equal(wide.status, 413);
    assert.match(wide.json.error.message, /8000 pixels a side \(this one is 8001×2\)/);
    // A small PNG padded past 5 MiB with an ancillary chunk.
    const png = makePng(4, 4);
    const pad = Buffer.alloc(5 * MIB + 12);
    pad.writeUInt32BE(5 * MIB, 0);
    pad.write('zzPd', 4, 'latin1');
    const heavy = Buffer.concat([png.subarray(0, 33), pad, png.subarray(33)]);
    const res = await upload(heavy, 'heavy.png');
    assert.equal(res.status, 413);
    assert.match(res.json.error.message, /at most 5 MiB/);
  });

  it('the same bytes twice are one file; unknown ids, sessions and missing names are clear errors', async () => {
    const body = Buffer.from('same content\n');
    const a = await upload(body, 'a.txt');
    const b = await upload(body, 'b.txt');
    assert.equal(a.json.id, b.json.id);
    assert.equal(b.json.name, 'b.txt');
    assert.equal(files().filter((f) => f === sha(body)).length, 1);
    assert.equal((await download('0'.repeat(64))).res.status, 404);
    assert.equal((await download('..%2Fsession.json')).res.status, 404);
    assert.equal((await upload(body, 'x.txt', {}, 's_nope')).status, 404);
    const noName = await send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(sid)}/attachments`,
      headers: { authorization: `Bearer ${rig.credential}` },
      body,
    });
    assert.equal(noName.status, 400);
    assert.equal(noName.json.error.field, 'X-Filename');
    const anonymous = await send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(sid)}/attachments`,
      headers: { 'x-filename': 'a' },
      body,
    });
    assert.equal(anonymous.status, 401);
    // Other routes still refuse non-JSON bodies.
    const notJson = await send(rig.proc.port, {
      method: 'POST',
      path: rig.sessionsPath(),
      headers: { authorization: `Bearer ${rig.credential}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    assert.equal(notJson.status, 415);
  });

  it('deleting a session moves its attachments to the trash with it', async () => {
    const other = await rig.newSession('to delete');
    const png = makePng(6, 6);
    const up = await upload(png, 'gone.png', {}, other);
    assert.equal(up.status, 201);
    const res = await rig.ok('DELETE', rig.sessionsPath(other));
    const trashed = path.join(rig.proc.dataDir, res.trashed_to, 'attachments', up.json.id);
    assert.deepEqual(readFileSync(trashed), png);
    assert.equal(JSON.parse(readFileSync(`${trashed}.json`, 'utf8')).name, 'gone.png');
  });

  it('a SIGKILL during an upload leaves no file under a final name', async () => {
    const before = files();
    const req = http.request({
      host: '127.0.0.1',
      port: rig.proc.port,
      method: 'POST',
      path: `${rig.sessionsPath(sid)}/attachments`,
      headers: { authorization: `Bearer ${rig.credential}`, 'x-filename': 'half.txt', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(MIB, 0x62));
    const deadline = Date.now() + 10_000;
    while (!files().some((f) => f.startsWith('.tmp-') && statSync(path.join(dir(), f)).size > 0)) {
      if (Date.now() > deadline) throw new Error('the upload never reached the disk');
      await new Promise((r) => setTimeout(r, 20));
    }
    await rig.proc.kill();
    req.destroy();
    const finals = files().filter((f) => !f.startsWith('.tmp-'));
    assert.deepEqual(
      finals,
      before.filter((f) => !f.startsWith('.tmp-')),
    );
    await rig.restart();
    const again = await upload(Buffer.alloc(MIB, 0x62), 'half.txt');
    assert.equal(again.status, 201);
    assert.equal(again.json.size, MIB);
  });
});
