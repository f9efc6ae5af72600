import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/backend-process.js';
import { KbRig } from './kb-harness.js';

// Folder, URL and note sources (DESIGN 13): a folder is read recursively with its patterns, dot
// folders, node_modules and links out of it left out, and followed while the backend runs; a URL
// goes through the web reader's address guard; a note is text.

describe('knowledge: folder, URL and note sources', () => {
  let rig: KbRig;
  let kb: string;
  let root: string;
  let outside: string;
  let pages: http.Server;
  let pagesHost = '';
  before(async () => {
    rig = await KbRig.start();
    kb = (await rig.createKb({ name: 'sources' })).id;
    root = tempDir('kb-folder-');
    outside = tempDir('kb-outside-');
    mkdirSync(path.join(root, 'sub'));
    mkdirSync(path.join(root, '.hidden'));
    mkdirSync(path.join(root, 'node_modules'));
    writeFileSync(path.join(root, 'alpha.md'), '# Alpha\n\nThe gnuplotter word lives here.\n');
    writeFileSync(path.join(root, 'sub', 'beta.txt'), 'beta holds the dromedarium\n');
    writeFileSync(path.join(root, '.hidden', 'gamma.txt'), 'hidden ocelotine\n');
    writeFileSync(path.join(root, 'node_modules', 'dep.txt'), 'dependency ocelotine\n');
    writeFileSync(path.join(root, 'debug.log'), 'excluded ocelotine\n');
    writeFileSync(path.join(root, 'image.bin'), Buffer.from([0, 1, 2, 3, 0xff]));
    writeFileSync(path.join(outside, 'secret.txt'), 'outside ocelotine\n');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out.txt'));
    symlinkSync(path.join(root, 'sub', 'beta.txt'), path.join(root, 'link-in.txt'));
    pages = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><html><head><title>Remote</title></head><body><article><h1>Remote page</h1><p>The remote page talks about the ibexander at length, long enough for the reader view to keep it.</p></article></body></html>`,
      );
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
    pagesHost = `127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  after(async () => {
    await rig?.stop();
    pages?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const found = async (q: string) => ((await rig.search(kb, q)).body.results as any[]).map((r) => `${r.location.file ?? ''}`);
  const eventually = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`never: ${what}`);
  };

  it('indexes a folder with its patterns; skips dot folders, node_modules, binaries and links out of it', async () => {
    const src = await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'folder', path: root, exclude: ['*.log'] });
    assert.equal(src.kind, 'folder');
    const ready = await rig.waitState(kb, src.id, ['ready', 'failed']);
    assert.equal(ready.state, 'ready', JSON.stringify(ready));
    assert.equal(ready.files, 3); // alpha.md, sub/beta.txt, link-in.txt
    assert.deepEqual(await found('gnuplotter'), ['alpha.md']);
    assert.deepEqual((await found('dromedarium')).sort(), ['link-in.txt', 'sub/beta.txt']);
    assert.deepEqual(await found('ocelotine'), []);
  });

  it('follows the folder while the backend runs: added, changed and removed files', async () => {
    writeFileSync(path.join(root, 'sub', 'delta.md'), 'a new file about the wolverinette\n');
    await eventually(async () => (await found('wolverinette')).includes('sub/delta.md'), 'the added file is found');
    writeFileSync(path.join(root, 'alpha.md'), '# Alpha\n\nNow it speaks of the hyraxoid.\n');
    await eventually(
      async () => (await found('hyraxoid')).includes('alpha.md') && (await found('gnuplotter')).length === 0,
      'the changed file is re-read',
    );
    rmSync(path.join(root, 'sub', 'delta.md'));
    await eventually(async () => (await found('wolverinette')).length === 0, 'the removed file leaves the index');
  });

  it('refuses a relative path or a missing folder, naming the field', async () => {
    const rel = await rig.call('POST', `/api/knowledge/${kb}/sources`, { kind: 'folder', path: 'docs' });
    assert.equal(rel.status, 400);
    assert.equal(rel.body.error.field, 'path');
    const missing = await rig.call('POST', `/api/knowledge/${kb}/sources`, { kind: 'folder', path: path.join(root, 'nope') });
    assert.equal(missing.body.error.field, 'path');
    const kind = await rig.call('POST', `/api/knowledge/${kb}/sources`, { kind: 'zip' });
    assert.equal(kind.status, 400);
    assert.match(kind.body.error.message, /kind must be one of folder, url, note/);
  });

  it('a URL on a private address is refused by the address guard until allowed; then it is read', async () => {
    const blocked = await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'url', url: `http://${pagesHost}/page` });
    const failed = await rig.waitState(kb, blocked.id, ['ready', 'failed']);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error.code, 'fetch_failed');
    await rig.ok('PUT', '/api/config/web', { web_search: { providers: [], approval: 'auto' }, web_fetch: { allow_hosts: [pagesHost] } });
    await rig.ok('POST', `/api/knowledge/${kb}/sources/${blocked.id}/retry`);
    assert.equal((await rig.waitState(kb, blocked.id, ['ready', 'failed'])).state, 'ready');
    const hit = (await rig.search(kb, 'ibexander')).body.results[0];
    assert.equal(hit.source_id, blocked.id);
  });

  it('a note is searchable; removing a source removes its passages', async () => {
    const note = await rig.ok('POST', `/api/knowledge/${kb}/sources`, {
      kind: 'note',
      title: 'Meeting',
      text: 'We agreed on the kinkajou plan.',
    });
    assert.equal((await rig.waitState(kb, note.id, ['ready', 'failed'])).state, 'ready');
    assert.equal((await rig.search(kb, 'kinkajou')).body.results[0].name, 'Meeting');
    const removed = await rig.call('DELETE', `/api/knowledge/${kb}/sources/${note.id}`);
    assert.equal(removed.status, 204);
    assert.deepEqual((await rig.search(kb, 'kinkajou')).body.results, []);
    assert.equal((await rig.call('DELETE', `/api/knowledge/${kb}/sources/${note.id}`)).status, 404);
  });
});
