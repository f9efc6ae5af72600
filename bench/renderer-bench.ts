/**
 * Renderer: gzip size of the built JS (dist/renderer, what `npm run build` ships) and the time to
 * first meaningful render in headless Chromium: navigation start → the first frame after the
 * pairing screen's "Pairing code" field is laid out. Timed inside the page (performance.now() is
 * relative to navigation start), so the harness's polling adds nothing. Fresh context (empty
 * HTTP cache) per run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../test/e2e/browser.js';
import { ROOT, TSC_BACKEND, figure, startListener, type Figure, type Listener } from './bench-kit.js';

const UI_DIR = path.join(ROOT, 'dist', 'renderer');

export function bundleGzipKb(): { gzipKb: number; rawKb: number; files: number } {
  const assets = path.join(UI_DIR, 'assets');
  // The Mermaid library is not part of the app: it is only ever run inside preview frames (artifacts bench).
  const js = readdirSync(assets).filter((f) => f.endsWith('.js') && !/^mermaid\.min-/.test(f));
  if (js.length === 0) throw new Error(`no JS bundle in ${assets}: run npm run build`);
  let gzip = 0;
  let raw = 0;
  for (const f of js) {
    const bytes = readFileSync(path.join(assets, f));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { gzipKb: gzip / 1024, rawKb: raw / 1024, files: js.length };
}

/** The JS a first load fetches: index.html's module script and its modulepreloads (lazy chunks excluded). */
export function firstLoadGzipKb(): { gzipKb: number; files: number } {
  const html = readFileSync(path.join(UI_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\.?\/?([^"]+\.js)"/g)].map((m) => m[1]);
  let gzip = 0;
  for (const f of files) gzip += gzipSync(readFileSync(path.join(UI_DIR, f)), { level: 9 }).length;
  return { gzipKb: gzip / 1024, files: files.length };
}

/**
 * Runs in the page before its scripts (a string: the root tsconfig has no DOM lib): notes the
 * frame after the field first has a layout box.
 */
const WATCH_PAIRING_FIELD = `(() => {
  const laidOut = () => {
    for (const label of document.querySelectorAll('label')) {
      if (label.textContent !== 'Pairing code') continue;
      const box = document.getElementById(label.htmlFor)?.getBoundingClientRect();
      if (box && box.width > 0 && box.height > 0) return true;
    }
    return false;
  };
  const observer = new MutationObserver(() => {
    if (!laidOut()) return;
    observer.disconnect();
    requestAnimationFrame(() => { window.__benchRender = performance.now(); });
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

export async function rendererFigures(runs = 7): Promise<Figure[]> {
  const size = bundleGzipKb();
  const sizeFigure = figure(
    {
      group: 'renderer',
      name: 'renderer JS, all chunks, gzip -9',
      unit: 'KB',
      target: { on: 'median', op: '<=', value: 250 },
      note: `${size.files} file(s), ${size.rawKb.toFixed(0)} KB raw`,
    },
    [size.gzipKb],
  );
  const first = firstLoadGzipKb();
  const firstFigure = figure(
    {
      group: 'renderer',
      name: 'renderer JS on first load, gzip -9',
      unit: 'KB',
      target: { on: 'median', op: '<=', value: 150 },
      note: `${first.files} file(s); the chat's Markdown renderer loads later`,
    },
    [first.gzipKb],
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ui-'));
  let backend: Listener | undefined;
  const browser = await launchChromium();
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', '0', '-data', path.join(tmp, 'data')], {
      SERVICE_UI_DIR: UI_DIR,
    });
    const times: number[] = [];
    for (let r = 0; r < runs + 1; r++) {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript({ content: WATCH_PAIRING_FIELD });
      await page.goto(`${backend.url}/`);
      await page.getByLabel('Pairing code').waitFor({ state: 'visible' });
      await page.waitForFunction('window.__benchRender !== undefined');
      const ms = (await page.evaluate('window.__benchRender')) as number;
      await context.close();
      if (r > 0) times.push(ms); // the first run warms Chromium's own caches
    }
    return [
      sizeFigure,
      firstFigure,
      figure(
        {
          group: 'renderer',
          name: 'renderer first meaningful render (nav start → "Pairing code" field)',
          unit: 'ms',
          target: { on: 'median', op: '<=', value: 500 },
          note: 'headless Chromium, fresh context per run',
        },
        times,
      ),
    ];
  } finally {
    await browser.close();
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
