/**
 * Artifacts: Mermaid timed the way the app does it (renderer/src/preview/diagram-host.ts): one
 * hidden sandboxed frame on /preview.html (the diagram host) gets the library text, fetched from
 * the build, with the first 50-node flowchart and answers with SVG text, which a second sandboxed
 * frame shows; stopped at that frame's "rendered" message. "First" is a fresh context (empty
 * cache): fetch + parse + draw + show; "warm" is the next diagram (another 50-node chart) through
 * the same host into a new preview frame. Driven through the DevTools protocol on the pairing
 * screen, which has the app's origin and CSP.
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

function fiftyNodes(label = 'Step'): string {
  const lines = ['flowchart TD'];
  for (let i = 1; i < 50; i++) lines.push(`  n${i}[${label} ${i}] --> n${i + 1}[${label} ${i + 1}]`);
  for (let i = 1; i + 7 <= 50; i += 7) lines.push(`  n${i} -.-> n${i + 7}`);
  return lines.join('\n');
}

/** In the page (a string: the root tsconfig has no DOM lib): one diagram drawn and shown, elapsed ms. */
const RENDER = `async ({ asset, code }) => {
  const t0 = performance.now();
  const frameOn = (hidden) => {
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    if (hidden) frame.style.cssText = 'position:fixed;left:-10000px;top:0;width:1000px;height:800px;border:0;visibility:hidden';
    frame.src = './preview.html';
    document.body.appendChild(frame);
    return frame;
  };
  const fromFrame = (frame, type) => new Promise((resolve, reject) => {
    const on = (e) => {
      if (e.source !== frame.contentWindow || e.data.type !== type) return;
      removeEventListener('message', on);
      if (e.data.error) reject(new Error(e.data.error)); else resolve(e.data);
    };
    addEventListener('message', on);
  });
  let lib;
  if (!window.__host) {
    const host = frameOn(true);
    const [text] = await Promise.all([fetch(asset).then((r) => r.text()), fromFrame(host, 'ready')]);
    window.__host = host;
    lib = text;
  }
  const drawn = fromFrame(window.__host, 'drawn');
  window.__host.contentWindow.postMessage({ type: 'draw', id: (window.__n = (window.__n || 0) + 1), code, theme: 'light', lib }, '*');
  const { svg } = await drawn;
  const frame = frameOn(false);
  await fromFrame(frame, 'ready');
  const rendered = fromFrame(frame, 'rendered');
  frame.contentWindow.postMessage({ type: 'render', kind: 'diagram', code: svg }, '*');
  await rendered;
  frame.remove();
  return performance.now() - t0;
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

    for (let r = 0; r < runs + 1; r++) {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${backend.url}/`);
      await page.getByLabel('Pairing code').waitFor({ state: 'visible' });
      const cold = (await page.evaluate(`(${RENDER})(${JSON.stringify({ asset, code: fiftyNodes('Step') })})`)) as number;
      const hot = (await page.evaluate(`(${RENDER})(${JSON.stringify({ asset, code: fiftyNodes('Stage') })})`)) as number;
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
          name: 'Mermaid first preview, 50 nodes (fetch + parse + draw + show)',
          unit: 'ms',
          note: `fresh context; library ${libGzipKb.toFixed(0)} KB gzip, parsed once per page in the diagram host frame`,
        },
        first,
      ),
      figure({ group: 'artifacts', name: 'Mermaid warm preview, 50 nodes (next diagram, same host)', unit: 'ms' }, warm),
    ];
  } finally {
    await browser.close();
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
