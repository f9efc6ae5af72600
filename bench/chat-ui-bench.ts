/**
 * Chat page figures in headless Chromium against the real backend (tsc build) and a timed local
 * provider: a provider chunk → its characters painted; a 2,000-message conversation opened and
 * scrolled to its first message; the longest frame while a reply streams into that conversation.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/browser.js';
import { ROOT, TSC_BACKEND, figure, pair, startListener, type Figure, type Listener } from './bench-kit.js';
import { percentile } from './stats.js';
import { TimedProvider } from './timed-provider.js';

const UI_DIR = path.join(ROOT, 'dist', 'renderer');
const LONG_MESSAGES = 2000;

/** Page-side probes (strings: the root tsconfig has no DOM lib). */
const PROBES = `(() => {
  window.__marks = {};
  let seen = new Set();
  window.__round = -1;
  window.__resetMarks = (round) => { window.__marks = {}; seen = new Set(); window.__round = round; };
  const afterPaint = (fn) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = fn; ch.port2.postMessage(0); });
  const scan = (text) => {
    const re = /r(\\d+)t(\\d+) /g; let m; const fresh = [];
    while ((m = re.exec(text))) { const k = Number(m[2]); if (Number(m[1]) === window.__round && !seen.has(k)) { seen.add(k); fresh.push(k); } }
    if (fresh.length) afterPaint(() => { const t = performance.timeOrigin + performance.now(); for (const k of fresh) window.__marks[k] = t; });
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'characterData') scan(r.target.data);
      else for (const n of r.addedNodes) scan(n.textContent || '');
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
  window.__long = [];
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true }); } catch {}
  window.__frames = null;
  window.__framesUntil = -1;
  let last = 0;
  window.__slow = [];
  const loop = (t) => { if (window.__frames && last && !(window.__marks[window.__framesUntil] !== undefined)) { window.__frames.push(t - last); if (t - last > 100) window.__slow.push([Math.round(last), Math.round(t - last)]); } last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
})();`;

const OPEN_AND_SCROLL = (lastId: string, firstId: string) => `(async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const state = () => { const s = document.querySelector('.msg-scroller'); const rows = document.querySelectorAll('.vrow'); return s ? JSON.stringify({ dbg: s.dataset.debug, top: s.scrollTop, h: s.scrollHeight, rows: rows.length, first: rows[0] && rows[0].dataset.key, older: !!document.querySelector('.older') }) : 'no scroller'; };
  const until = async (check, limitMs) => { const end = performance.now() + limitMs; while (!check()) { if (performance.now() > end) throw new Error('timed out: ' + state()); await frame(); } await frame(); };
  const button = [...document.querySelectorAll('.session-pick')].find((b) => b.textContent.includes('Long conversation'));
  const t0 = performance.now();
  button.click();
  await until(() => document.querySelector('[data-ids~="${lastId}"]'), 20000);
  const open = performance.now() - t0;
  await until(() => {
    const s = document.querySelector('.msg-scroller');
    if (s) s.scrollTop = 0;
    return document.querySelector('[data-ids~="${firstId}"]');
  }, 20000);
  return { open, top: performance.now() - t0 };
})()`;

function longConversation(): string {
  const lines: string[] = [];
  const at = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < LONG_MESSAGES; i++) {
    const id = `m-${String(i).padStart(6, '0')}`;
    const created_at = new Date(at + i * 1000).toISOString();
    const n = Math.floor(i / 2) + 1;
    const m =
      i % 2 === 0
        ? { id, role: 'user', created_at, blocks: [{ type: 'text', text: `Question number ${n}: how does part ${n} work?` }] }
        : {
            id,
            role: 'assistant',
            created_at,
            model: 'timed:m1',
            usage: { input: 1000 + i, output: 120, cache_read: 0, cache_write: 0, reasoning: 0 },
            blocks: [
              {
                type: 'text',
                text:
                  `Reply number ${n}. Part ${n} works in **three** steps:\n\n1. read the input\n2. check it\n3. write the result\n\n` +
                  (n % 5 === 0 ? '```ts\nconst answer = compute(' + n + ');\n```\n' : `See \`part${n}\` for the details.`),
              },
            ],
          };
    lines.push(JSON.stringify({ t: 'message', m }));
  }
  return lines.join('\n') + '\n';
}

async function call(l: Listener, credential: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(l.url + p, {
    method,
    headers: { authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Sends and waits for the reply through cheap CSS probes: Playwright's role queries walk the whole
 * DOM of a 2,000-message page on every poll and would be the jank being measured.
 */
async function sendAndWait(page: Page, text: string, lastChunk: number): Promise<void> {
  const box = page.locator('.composer textarea');
  await box.fill(text);
  await page.evaluate('window.__sendAt = performance.now(); window.__long = []');
  await box.press('Enter');
  const poll = async (expr: string, what: string) => {
    const end = Date.now() + 60_000;
    while (!(await page.evaluate(expr))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await poll(`window.__marks[${lastChunk}] !== undefined`, `chunk ${lastChunk} painted`);
  await poll(`!!document.querySelector('.composer button[type=submit]')`, 'the turn to end');
}

export async function chatUiFigures(runs = 3): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-chat-'));
  const dataDir = path.join(tmp, 'data');
  const provider = await TimedProvider.start();
  let backend: Listener | undefined;
  const browser = await launchChromium();
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', dataDir], { SERVICE_UI_DIR: UI_DIR });
    const credential = await pair(backend);
    const api = (method: string, p: string, body?: unknown) => call(backend!, credential, method, p, body);
    await api('POST', '/api/config/providers', {
      id: 'timed',
      name: 'Timed',
      type: 'compat',
      base_url: `${provider.url}/v1`,
      api_key: 'sk-bench-key',
      models: [{ id: 'm1', context_window: 128_000 }],
    });
    await api('PUT', '/api/config/defaults', { provider: 'timed', model: 'm1' });
    const ws = (await api('POST', '/api/workspaces', { name: 'Bench' })).id as string;
    const small = (await api('POST', `/api/workspaces/${ws}/sessions`, { title: 'Latency' })).id as string;
    const long = (await api('POST', `/api/workspaces/${ws}/sessions`, { title: 'Long conversation' })).id as string;
    const sessionDir = path.join(dataDir, 'workspaces', ws, 'sessions', long);
    mkdirSync(sessionDir, { recursive: true });
    writeFileSync(path.join(sessionDir, 'events.jsonl'), longConversation());

    const store = JSON.stringify({
      [`service.credential:${backend.url}`]: credential,
      'service.chat.workspace': ws,
      [`service.chat.session.${ws}`]: small,
      'service.language': 'en',
    });
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    await context.addInitScript({
      content: `(() => { const s = ${store}; for (const k of Object.keys(s)) if (!sessionStorage.getItem('bench.set')) localStorage.setItem(k, s[k]); sessionStorage.setItem('bench.set', '1'); })();`,
    });
    await context.addInitScript({ content: PROBES });
    const page = await context.newPage();
    if (process.env.BENCH_DEBUG) page.on('console', (m) => console.error('page:', m.text()));
    await page.goto(`${backend.url}/#/chat`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 30_000 });

    // Chunk → paint: warm-up round, then measured rounds of 40 chunks 40 ms apart.
    const latencies: number[] = [];
    for (let r = 0; r < runs + 1; r++) {
      const chunks = 40;
      provider.next({ chunks, intervalMs: 40, round: r });
      await page.evaluate(`window.__resetMarks(${r})`);
      await sendAndWait(page, `latency round ${r}`, chunks - 1);
      const marks = (await page.evaluate('window.__marks')) as Record<string, number>;
      if (r > 0) for (let k = 0; k < chunks; k++) latencies.push(marks[k] - provider.sentAt[k]);
    }

    // 2,000 messages: click → newest painted, and → first message painted after scrolling up.
    const opens: number[] = [];
    const tops: number[] = [];
    for (let r = 0; r < runs; r++) {
      await page.evaluate(`localStorage.setItem('service.chat.session.${ws}', '${small}')`);
      await page.reload();
      await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 30_000 });
      const m = (await page.evaluate(OPEN_AND_SCROLL(`m-${String(LONG_MESSAGES - 1).padStart(6, '0')}`, 'm-000000'))) as {
        open: number;
        top: number;
      };
      opens.push(m.open);
      tops.push(m.top);
    }

    // Streaming into the loaded 2,000-message conversation: the longest frame.
    const streamChunks = 150;
    provider.next({ chunks: streamChunks, intervalMs: 20, round: 99 });
    await page.evaluate(`window.__resetMarks(99); window.__frames = []; window.__framesUntil = ${streamChunks - 1};`);
    const cdp = process.env.BENCH_DEBUG ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    await sendAndWait(page, 'stream into the long chat', streamChunks - 1);
    if (cdp) {
      const { profile } = (await cdp.send('Profiler.stop')) as any;
      const self = new Map<string, number>();
      const dt = profile.timeDeltas as number[];
      const byId = new Map<number, any>(profile.nodes.map((n: any) => [n.id, n]));
      (profile.samples as number[]).forEach((id, i) => {
        const n = byId.get(id);
        const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`;
        self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
      });
      console.error(
        [...self.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 25)
          .map(([k, v]) => `${v.toFixed(0)} ms ${k}`)
          .join('\n'),
      );
    }
    const frames = (await page.evaluate('window.__frames')) as number[];
    if (process.env.BENCH_DEBUG)
      console.error(
        await page.evaluate(
          'JSON.stringify({ sendAt: Math.round(window.__sendAt), long: window.__long, slow: window.__slow, now: Math.round(performance.now()) })',
        ),
      );
    await context.close();

    return [
      figure(
        {
          group: 'chat-ui',
          name: 'chat UI: provider chunk → characters painted (p50)',
          unit: 'ms',
          target: { on: 'median', op: '<=', value: 50 },
          note: `${latencies.length} chunks, ${runs} replies of 40 chunks 40 ms apart; p95 ${percentile(latencies, 95).toFixed(1)} ms`,
        },
        latencies,
        'p25–p75',
      ),
      figure(
        { group: 'chat-ui', name: 'chat UI: open a 2,000-message conversation (click → newest painted)', unit: 'ms', note: `${runs} runs` },
        opens,
      ),
      figure(
        {
          group: 'chat-ui',
          name: 'chat UI: open a 2,000-message conversation and scroll to its first message',
          unit: 'ms',
          target: { on: 'median', op: '<=', value: 500 },
          note: `${runs} runs; older pages of 500 load as the top comes into view`,
        },
        tops,
      ),
      figure(
        {
          group: 'chat-ui',
          name: 'chat UI: longest frame while a reply streams into it',
          unit: 'ms',
          target: { on: 'median', op: '<=', value: 100 },
          note: `${frames.length} frames over ${streamChunks} chunks 20 ms apart; p95 ${percentile(frames, 95).toFixed(1)} ms`,
        },
        [Math.max(...frames)],
      ),
    ];
  } finally {
    await browser.close();
    await backend?.stop();
    await provider.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
