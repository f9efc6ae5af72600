import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { WebService, type WebTurnTools } from '../../backend/web/web-tools.js';
import { WebConfigSchema } from '../../backend/web/web-api.js';
import type { ToolSpec } from '../../backend/tools/tool-source.js';
import { makePdf, makePng } from '../helpers/test-files.js';
import { articlePage, PageServer, paragraphsOf } from './web-servers.js';

describe('web_fetch reads pages', () => {
  let server: PageServer;
  let tools: WebTurnTools;
  let fetchSpec: ToolSpec;
  const signal = new AbortController().signal;
  const main = paragraphsOf(8, 40, 'main');

  before(async () => {
    server = await PageServer.start((req, res) => {
      const path = req.url ?? '/';
      if (path === '/article') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(articlePage(main));
      }
      if (path === '/gz-article') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        return res.end(gzipSync(articlePage(main, 'Compressed Title')));
      }
      if (path === '/paper.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end(makePdf('Quantum pineapple theorem holds'));
      }
      if (path === '/image.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(makePng(4, 4));
      }
      if (path === '/notes.txt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('Plain notes: 计算 stays text.\n<b>not html</b>');
      }
      if (path === '/huge') {
        // 12 MiB, streamed without a length (the cap must hold on the stream, not only on Content-Length).
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        for (let i = 0; i < 12; i++) res.write(chunk);
        return res.end();
      }
      if (path === '/huge-declared') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(12 * 1024 * 1024) });
        return res.end(Buffer.alloc(12 * 1024 * 1024, 'b'));
      }
      const hop = /^\/hop\/(\d+)$/.exec(path);
      if (hop) {
        const n = Number(hop[1]);
        if (n > 0) {
          res.writeHead(302, { location: `/hop/${n - 1}` });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(articlePage(paragraphsOf(3, 40, 'landed'), 'Landing'));
      }
      if (path === '/missing') {
        res.writeHead(404);
        return res.end('nope');
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(articlePage(paragraphsOf(3, 40, 'other')));
    });
    const config = WebConfigSchema.parse({ web_fetch: { allow_hosts: [server.host] } });
    const web = new WebService({ config: async () => config, env: {} });
    tools = await web.turnTools();
    fetchSpec = (await tools.list()).find((s) => s.name === 'web_fetch')!;
  });
  after(() => server?.stop());

  const fetchPage = (url: string, extra: Record<string, unknown> = {}) => tools.call('w', fetchSpec, { url, ...extra }, signal);

  it('turns an article into Markdown of its main text, without navigation, footer or scripts', async () => {
    const out = await fetchPage(`${server.url}/article`);
    assert.equal(out.ok, true, out.content);
    assert.match(out.content, /^\[1\] The Article Title\nURL: http:\/\/127\.0\.0\.1:\d+\/article\n/);
    for (const p of main) assert.ok(out.content.includes(p.slice(0, -1)), 'a main paragraph is missing');
    for (const chrome of ['NAVLINK-Pricing', 'FOOTER-TEXT', 'SCRIPT-CONTENT-XYZ', 'SCRIPT-TWO', 'SECRETSTYLE', 'SIDEBAR-ITEM'])
      assert.ok(!out.content.includes(chrome), `${chrome} leaked into the page text`);
    // Links become absolute Markdown links.
    assert.match(out.content, new RegExp(`\\[the related page\\]\\(http://127\\.0\\.0\\.1:${server.port}/relative/page\\)`));
  });

  it('reads gzip pages, PDFs and plain text; refuses an image naming its type', async () => {
    assert.match((await fetchPage(`${server.url}/gz-article`)).content, /Compressed Title[\s\S]*main0x0/);
    const pdf = await fetchPage(`${server.url}/paper.pdf`);
    assert.equal(pdf.ok, true, pdf.content);
    assert.match(pdf.content, /Quantum pineapple theorem holds/);
    const text = await fetchPage(`${server.url}/notes.txt`);
    assert.match(text.content, /Plain notes: 计算 stays text\.\n<b>not html<\/b>/);
    const image = await fetchPage(`${server.url}/image.png`);
    assert.equal(image.ok, false);
    assert.match(image.content, /is image\/png; web_fetch reads HTML, PDF and text pages only/);
  });

  it('refuses pages over 10 MiB, streamed or declared', async () => {
    for (const path of ['/huge', '/huge-declared']) {
      const out = await fetchPage(`${server.url}${path}`);
      assert.equal(out.ok, false);
      assert.match(out.content, /larger than 10 MiB/);
    }
  });

  it('follows up to 5 redirects and reports the final URL; a sixth is refused', async () => {
    const out = await fetchPage(`${server.url}/hop/5`);
    assert.equal(out.ok, true, out.content);
    assert.match(out.content, new RegExp(`URL: http://127\\.0\\.0\\.1:${server.port}/hop/0\\n`));
    assert.match(out.content, /landed0x0/);
    const tooMany = await fetchPage(`${server.url}/hop/6`);
    assert.equal(tooMany.ok, false);
    assert.match(tooMany.content, /More than 5 redirects/);
  });

  it('cuts to max_chars and says so; a second read within 15 minutes comes from the cache', async () => {
    const hits = server.hits.filter((h) => h.path === '/article').length;
    const out = await fetchPage(`${server.url}/article`, { max_chars: 100 });
    assert.match(out.content, /\[cut: showing 100 of \d+ characters; call web_fetch with a larger max_chars for more\]$/);
    assert.equal(server.hits.filter((h) => h.path === '/article').length, hits, 'the cached page was fetched again');
    const bad = await fetchPage(`${server.url}/article`, { max_chars: 0 });
    assert.equal(bad.ok, false);
    assert.match(bad.content, /max_chars must be an integer between 1 and 200000/);
  });

  it('names HTTP errors and keeps numbering sources per turn', async () => {
    const out = await fetchPage(`${server.url}/missing`);
    assert.equal(out.ok, false);
    assert.match(out.content, /HTTP 404/);
    const again = await fetchPage(`${server.url}/article`);
    assert.match(again.content, /^\[1\] /, 'the same page keeps its number');
    const other = await fetchPage(`${server.url}/other`);
    assert.match(other.content, /^\[\d\] /);
    const cited = tools.citations('As [1] says.');
    assert.deepEqual(
      cited.map((c) => c.url),
      [`${server.url}/article`],
    );
  });
});
