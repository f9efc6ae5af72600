import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makePdf } from '../helpers/test-files.js';
import { KbRig, makeDocx } from './kb-harness.js';

// Each file type parsed from real generated files by a real backend, found by its words with the
// location a citation opens; hostile queries answer, never a 500 (DESIGN 13).

describe('knowledge: file types, lexical search, hostile queries', () => {
  let rig: KbRig;
  let kb: string;
  const ids: Record<string, string> = {};
  before(async () => {
    rig = await KbRig.start();
    kb = (await rig.createKb({ name: 'lexical' })).id;
    const md = '# Guide\n\nIntro text.\n\n## Installing\n\nRun the zebracorn installer twice.\n';
    const files: [string, Buffer][] = [
      ['guide.md', Buffer.from(md)],
      ['notes.txt', Buffer.from('line one\nline two\nthe quokkafish lives on line three\n')],
      ['table.csv', Buffer.from('city,river\nParis,Seine\nLondon,Thames\nVienna,Donauwelle\n')],
      ['data.json', Buffer.from(JSON.stringify({ release: '7.3.2', codename: 'AURA-7', note: 'platypoodle' }, null, 2))],
      [
        'page.html',
        Buffer.from(
          '<!doctype html><html><head><title>T</title></head><body><h1>Main title</h1><h2>Section B</h2><p>The wombatron is explained here in a paragraph long enough for the reader view to keep it as the article content of this page.</p></body></html>',
        ),
      ],
      ['paper.pdf', makePdf('The narwhalion appears in this scanned text', 2)],
      ['report.docx', makeDocx([{ text: 'Findings', style: 'Heading1' }, { text: 'The capybarix result holds.' }])],
    ];
    for (const [name, bytes] of files) ids[name] = (await rig.uploadOk(kb, name, bytes)).id;
    for (const id of Object.values(ids)) {
      const s = await rig.waitState(kb, id, ['ready', 'failed']);
      assert.equal(s.state, 'ready', JSON.stringify(s));
    }
  });
  after(async () => rig?.stop());

  const top = async (q: string) => {
    const res = await rig.search(kb, q);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { results: any[]; mode: string };
  };

  it('finds Markdown by its words with the heading path and line range', async () => {
    const { results, mode } = await top('zebracorn');
    assert.equal(mode, 'lexical');
    assert.equal(results[0].source_id, ids['guide.md']);
    assert.deepEqual(results[0].location.heading, ['Guide', 'Installing']);
    assert.equal(results[0].location.line_start, 5);
  });

  it('finds text by line range, a CSV row with its header, JSON values', async () => {
    const text = (await top('quokkafish')).results[0];
    assert.equal(text.source_id, ids['notes.txt']);
    assert.deepEqual([text.location.line_start, text.location.line_end], [1, 3]);
    const csv = (await top('Donauwelle')).results[0];
    assert.equal(csv.source_id, ids['table.csv']);
    assert.match(csv.text, /^city,river\n/);
    assert.equal((await top('platypoodle')).results[0].source_id, ids['data.json']);
  });

  it('finds HTML under its heading, a PDF passage by page, a DOCX paragraph under its heading', async () => {
    const html = (await top('wombatron')).results[0];
    assert.equal(html.source_id, ids['page.html']);
    assert.doesNotMatch(html.text, /<p>/);
    const pdf = (await top('narwhalion')).results;
    assert.deepEqual(
      pdf
        .filter((r) => r.source_id === ids['paper.pdf'])
        .map((r) => r.location.page)
        .sort(),
      [1, 2],
    );
    const docx = (await top('capybarix')).results[0];
    assert.equal(docx.source_id, ids['report.docx']);
    assert.deepEqual(docx.location.heading, ['Findings']);
  });

  it('hostile queries are words: 7.3.2, AURA-7, quotes, NEAR, *, -, : answer 200', async () => {
    assert.equal((await top('7.3.2')).results[0]?.source_id, ids['data.json']);
    assert.equal((await top('AURA-7')).results[0]?.source_id, ids['data.json']);
    for (const q of [
      '"',
      '"unbalanced',
      'NEAR(a b)',
      '*',
      '-',
      ':',
      'a:b',
      '-zebracorn',
      'AND',
      'OR NOT',
      '(',
      'c++',
      '^x',
      '{a b}:c',
      '',
      '   ',
    ]) {
      const res = await rig.search(kb, q);
      assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await top('-zebracorn')).results[0]?.source_id, ids['guide.md']);
  });

  it('nothing relevant is an answer; bad input names the field', async () => {
    assert.deepEqual((await top('xylophonequark')).results, []);
    const bad = await rig.call('POST', `/api/knowledge/${kb}/search`, { query: 'x', top_k: 0 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'top_k');
    const mode = await rig.call('POST', `/api/knowledge/${kb}/search`, { query: 'x', mode: 'fuzzy' });
    assert.equal(mode.body.error.field, 'mode');
  });

  it('refuses a binary file naming what it is, and serves a span and the original bytes', async () => {
    const bin = await rig.upload(kb, 'x.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
    assert.equal(bin.status, 415);
    const span = await rig.ok('GET', `/api/knowledge/${kb}/sources/${ids['paper.pdf']}/chunks?from=0&to=5`);
    assert.equal(span.chunks_total, 2);
    assert.equal(span.chunks[1].location.page, 2);
    const file = await fetch(`${rig.proc.url}/api/knowledge/${kb}/sources/${ids['paper.pdf']}/file`, {
      headers: { authorization: `Bearer ${rig.credential}` },
    });
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
  });
});
