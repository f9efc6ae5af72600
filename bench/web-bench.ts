/**
 * Web reading figures (DESIGN 14): `web_fetch` of a 1 MB article page from a local server (admitted
 * by allow_hosts), time from the call to Markdown (a fresh URL each run, so the cache never
 * answers), and the share of the page's main text kept: the page is generated with known main
 * paragraphs inside navigation, sidebars, comments and scripts, and every main word is looked for
 * in the Markdown. The first read also pays for loading the HTML libraries; it is reported apart.
 */
import { performance } from 'node:perf_hooks';
import { WebService } from '../backend/web/web-tools.js';
import { WebConfigSchema } from '../backend/web/web-api.js';
import { articlePage, PageServer, paragraphsOf } from '../test/web/web-servers.js';
import { figure, type Figure } from './bench-kit.js';

/** About 1 MB: 700 main paragraphs (~470 KB) and page chrome (nav links, sidebar lists, scripts) around them. */
function bigArticle(): { html: string; mainWords: string[] } {
  const main = paragraphsOf(700, 60, 'mw');
  const chrome = Array.from({ length: 6500 }, (_, i) => `<li><a href="/n${i}">menu entry ${i}</a></li>`).join('');
  const script = `<script>${'var tracker = "x";'.repeat(8000)}</script>`;
  let html = articlePage(main, 'Bench Article');
  html = html.replace('</nav>', `<ul class="menu">${chrome}</ul></nav>`).replace('</footer>', `${script}</footer>`);
  html = html.replace('<aside class="sidebar">', `<aside class="sidebar"><ul>${chrome}</ul>`);
  return { html, mainWords: main.join(' ').replace(/\./g, '').split(' ') };
}

export async function webFigures(): Promise<Figure[]> {
  const { html, mainWords } = bigArticle();
  const server = await PageServer.start((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  try {
    const config = WebConfigSchema.parse({ web_fetch: { allow_hosts: [server.host] } });
    const web = new WebService({ config: async () => config, env: {} });
    const times: number[] = [];
    let kept = 0;
    let first = 0;
    for (let run = 0; run < 11; run++) {
      const start = performance.now();
      const page = await web.fetch(`${server.url}/article?run=${run}`);
      const ms = performance.now() - start;
      if (run === 0) {
        first = ms;
        const words = new Set(page.markdown.split(/[\s.]+/));
        const found = mainWords.filter((w) => words.has(w)).length;
        kept = found / mainWords.length;
      } else times.push(ms);
    }
    const note = `page ${(html.length / 1024 / 1024).toFixed(2)} MB; first read incl. library load ${first.toFixed(0)} ms`;
    return [
      figure({ group: 'web', name: 'web_fetch 1 MB article → Markdown (p50)', unit: 'ms', note }, times),
      figure({ group: 'web', name: 'web_fetch main text kept', unit: '%', target: { on: 'median', op: '>=', value: 95 } }, [kept * 100]),
    ];
  } finally {
    await server.stop();
  }
}
