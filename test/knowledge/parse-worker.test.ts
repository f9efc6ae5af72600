import assert from 'node:assert/strict';
import { createDeflateRaw } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { KbRig, makeZip } from './kb-harness.js';

// Parsing runs in a worker thread (DESIGN 13, docs/knowledge.md "Ingestion"): while a large file
// is parsed the backend keeps answering; a parse error, a decompression bomb or a worker that runs
// out of memory ends the source as `failed` with the reason, and the backend carries on.

const MB = 1024 * 1024;

/** A CSV of about `bytes`: many short rows, so that splitting it into rows is most of the work. */
function bigCsv(bytes: number): Buffer {
  const rows: string[] = ['id,city,river,note'];
  let size = rows[0].length;
  for (let i = 0; size < bytes; i++) {
    const row = `${i},city${i % 977},"river ${i % 131}, the ${i % 7}th",n${(i * 2654435761) % 1000003}`;
    rows.push(row);
    size += row.length + 1;
  }
  return Buffer.from(rows.join('\n'));
}

/** Deflated zeros: `size` bytes once inflated, a few hundred kB packed. */
async function deflatedZeros(size: number): Promise<Buffer> {
  const z = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => z.on('end', resolve));
  const block = Buffer.alloc(MB);
  for (let left = size; left > 0; left -= MB) if (!z.write(block)) await new Promise((r) => z.once('drain', r));
  z.end();
  await ended;
  return Buffer.concat(out);
}

describe('knowledge: parsing in a worker thread', () => {
  let rig: KbRig;
  before(async () => {
    rig = await KbRig.start();
  });
  after(async () => rig?.stop());

  it('the backend keeps answering while a 40 MB CSV is parsed, and the CSV becomes ready', async () => {
    const kb = (await rig.createKb({ name: 'big' })).id;
    const src = await rig.uploadOk(kb, 'big.csv', bigCsv(40 * MB));
    // Requests one after another until the first chunks are stored: each answer that still says
    // "parsing, no chunks yet" was served while the file was being read and split. On the main
    // thread the whole parse is one turn of the event loop and almost none would be.
    let answeredWhileParsing = 0;
    let s = await rig.source(kb, src.id);
    while (s.state === 'queued' || (s.state === 'parsing' && s.chunks_total === 0)) {
      if (s.state === 'parsing') answeredWhileParsing++;
      s = await rig.source(kb, src.id);
    }
    assert.ok(answeredWhileParsing >= 25, `only ${answeredWhileParsing} requests were answered during the parse`);
    const ready = await rig.waitState(kb, src.id, ['ready', 'failed'], 180_000);
    assert.equal(ready.state, 'ready', JSON.stringify(ready.error));
    const hit = (await rig.search(kb, 'n614687', { mode: 'lexical' })).body.results[0];
    assert.match(hit.text, /^7145,city306,"river 71, the 5th",n614687$/m);
  });

  it('a damaged DOCX and a DOCX bomb fail as parse_failed with the reason; the backend carries on', async () => {
    const kb = (await rig.createKb({ name: 'hostile' })).id;
    const damaged = makeZip([['word/document.xml', Buffer.alloc(0), { packed: Buffer.from('not deflate data at all'), size: 900 }]]);
    const bomb = makeZip([['word/document.xml', Buffer.alloc(0), { packed: await deflatedZeros(300 * MB), size: 300 * MB }]]);
    const a = await rig.uploadOk(kb, 'damaged.docx', damaged);
    const b = await rig.uploadOk(kb, 'bomb.docx', bomb);
    const fa = await rig.waitState(kb, a.id, ['ready', 'failed']);
    assert.equal(fa.state, 'failed');
    assert.equal(fa.error.code, 'parse_failed');
    assert.match(fa.error.message, /The Word document could not be read: word\/document\.xml could not be inflated/);
    const fb = await rig.waitState(kb, b.id, ['ready', 'failed']);
    assert.equal(fb.state, 'failed');
    assert.equal(fb.error.code, 'parse_failed');
    assert.match(fb.error.message, /could not be inflated/);
    const note = await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'note', title: 'after', text: 'The lemurtron survived.' });
    assert.equal((await rig.waitState(kb, note.id, ['ready', 'failed'])).state, 'ready');
  });

  it('JSON nested 1,000,000 deep ends ready or failed, never stuck', async () => {
    const kb = (await rig.createKb({ name: 'deep' })).id;
    const json = `${'['.repeat(1_000_000)}"the deepjson word"${']'.repeat(1_000_000)}`;
    const src = await rig.uploadOk(kb, 'deep.json', Buffer.from(json));
    const end = await rig.waitState(kb, src.id, ['ready', 'failed'], 120_000);
    if (end.state === 'failed') assert.equal(end.error.code, 'parse_failed', JSON.stringify(end.error));
    assert.equal((await rig.call('GET', '/health')).status, 200);
  });
});

describe('knowledge: a parse that does not end', () => {
  let rig: KbRig;
  before(async () => {
    // The parse deadline (10 minutes), shortened by a test knob that can only shorten it.
    rig = await KbRig.start({ start: { env: { SERVICE_KB_PARSE_TIMEOUT_MS: '4000' } } });
  });
  after(async () => rig?.stop());

  it('a page nested 100,000 deep is stopped at the deadline and fails with the reason; the next file is ready', async () => {
    const kb = (await rig.createKb({ name: 'deep' })).id;
    const depth = 100_000;
    const page = `<!doctype html><html><body>${'<div>'.repeat(depth)}The deepfinch nests here.${'</div>'.repeat(depth)}</body></html>`;
    const src = await rig.uploadOk(kb, 'deep.html', Buffer.from(page));
    const end = await rig.waitState(kb, src.id, ['ready', 'failed'], 120_000);
    assert.equal(end.state, 'failed');
    assert.equal(end.error.code, 'parse_failed');
    assert.equal(end.error.message, 'deep.html was still being parsed after 4 seconds and was stopped.');
    const note = await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'note', title: 'n', text: 'The pangolind note.' });
    assert.equal((await rig.waitState(kb, note.id, ['ready', 'failed'])).state, 'ready');
  });
});

describe('knowledge: a parse worker that runs out of memory', () => {
  let rig: KbRig;
  before(async () => {
    // The heap a parser may use, lowered (a test knob that can only lower it) below what the
    // document tree of this page needs: it grows object by object, as a hostile page's would.
    rig = await KbRig.start({ start: { env: { SERVICE_KB_PARSE_HEAP_MB: '64' } } });
  });
  after(async () => rig?.stop());

  it('fails that source with the reason; the backend answers and the next file is ready', async () => {
    const kb = (await rig.createKb({ name: 'oom' })).id;
    const page = `<!doctype html><html><head><title>t</title></head><body>${'<div><p>word <b>bold</b> text</p></div>'.repeat(300_000)}</body></html>`;
    const big = await rig.uploadOk(kb, 'huge.html', Buffer.from(page));
    const failed = await rig.waitState(kb, big.id, ['ready', 'failed'], 120_000);
    assert.equal(failed.state, 'failed', 'a parser out of memory never reports ready');
    assert.equal(failed.error.code, 'parse_failed');
    assert.match(failed.error.message, /^huge\.html needs more memory to parse than a parser may use \(64 MB\)\.$/);
    assert.equal((await rig.call('GET', '/health')).status, 200);
    const small = await rig.uploadOk(kb, 'small.md', Buffer.from('# Small\n\nThe okapiran is found.\n'));
    assert.equal((await rig.waitState(kb, small.id, ['ready', 'failed'])).state, 'ready');
    assert.equal((await rig.search(kb, 'okapiran')).body.results[0]?.source_id, small.id);
  });
});
