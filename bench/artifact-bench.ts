/**
 * Artifacts: Mermaid in the preview frame, timed the way the app does it (renderer/src/preview/):
 * a sandboxed frame on /preview.html, the library text fetched from the build and posted in with a
 * 50-node flowchart, stopped at the frame's "rendered" message. "First" is a fresh context (empty
 * cache): fetch + parse + render; "warm" is a new frame with the library text already in memory
 * (each preview frame parses the library itself). Driven through the DevTools protocol on the
 * pairing screen, which has the app's origin and CSP.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../test/e2e/browser.js';
import { ROOT, TSC_BACKEND, figure, startListener, type Figure, type Listener } from './bench-kit.js';

const UI_DIR = path.join(ROOT, 'dist', 'renderer');

export function mermaidAsset(): string {
  const file = readdirSync(path.join(UI_DIR, 'assets')).find((f) => /^mermaid\.min-[\w-]+\.js$/.test(f));
  if (!file) throw new Error('no Mermaid asset in dist/renderer/assets: run npm run build');
  return `assets/${file}`;
}

function fiftyNodes(): string {
  const lines = ['flowchart TD'];
  for (let i = 1; i < 50; i++) lines.push(`  n${i}[Step ${i}] --> n${i + 1}[Step ${i + 1}]`);
  for (let i = 1; i + 7 <= 50; i += 7) lines.push(`  n${i} -.-> n${i + 7}`);
  return lines.join('\n');
}

/** In the page (a string: the root tsconfig has no DOM lib): one frame, one render, elapsed ms. */
const RENDER = `async ({ asset, code, lib }) => {
  const t0 = performance.now();
  const text = lib ? window.__mermaidLib : await (await fetch(asset)).text();
  window.__mermaidLib = text;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.src = './preview.html';
  document.body.appendChild(frame);
  return await new Promise((resolve, reject) => {
    addEventListener('message', (e) => {
      if (e.source !== frame.contentWindow) return;
      if (e.data.type === 'ready') frame.contentWindow.postMessage({ type: 'render', kind: 'mermaid', code, lib: text, theme: 'light' }, '*');
      if (e.data.type === 'rendered') { frame.remove(); resolve(performance.now() - t0); }
      if (e.data.type === 'error') reject(new Error(e.data.message));
    });
  });
}`;

export async function artifactFigures(runs = 5): Promise<Figure[]> {
  const asset = mermaidAsset();
  const libGzipKb = gzipSync(readFileSync(path.join(UI_DIR, asset)), { level: 9 }).length / 1024;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-art-'));
  let backend: Listener | undefined;
  const browser = await launchChromium();
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', '0', '-data', path.join(tmp, 'data')], {
      SERVICE_UI_DIR: UI_DIR,
    });
    const first: number[] = [];
    const warm: number[] = [];
    const code = fiftyNodes();
    for (let r = 0; r < runs + 1; r++) {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${backend.url}/`);
      await page.getByLabel('Pairing code').waitFor({ state: 'visible' });
      const cold = (await page.evaluate(`(${RENDER})(${JSON.stringify({ asset, code, lib: false })})`)) as number;
      const hot = (await page.evaluate(`(${RENDER})(${JSON.stringify({ asset, code, lib: true })})`)) as number;
      await context.close();
      if (r > 0) {
        first.push(cold); // the first run warms Chromium's own caches
        warm.push(hot);
      }
    }
    return [
      figure(
        {
          group: 'artifacts',
          name: 'Mermaid first preview, 50 nodes (fetch + parse + render)',
          unit: 'ms',
          note: `fresh context; library ${libGzipKb.toFixed(0)} KB gzip, loaded only into preview frames`,
        },
        first,
      ),
      figure({ group: 'artifacts', name: 'Mermaid warm preview, 50 nodes (new frame, library in memory)', unit: 'ms' }, warm),
    ];
  } finally {
    await browser.close();
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
