import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { startUiBackend } from './paired-page.js';
import { pageCredential } from './chat-page-kit.js';

const PAGES = [
  ['chat', 'Chat'],
  ['providers', 'Providers'],
  ['profiles', 'Profiles'],
  ['workspaces', 'Workspaces'],
  ['tools', 'Tool servers'],
  ['skills', 'Skills'],
  ['logs', 'Logs'],
  ['backups', 'Backups'],
  ['swap', 'Swap builder'],
  ['connection', 'Connection'],
] as const;
const VIEWPORTS = [
  [1280, 800],
  [900, 700],
  [700, 700],
  [390, 844],
] as const;

/**
 * Nothing scrolls sideways: the page and its main column fit the window. At phone width (`strict`) the
 * tables' own scroll boxes count too: no box inside the main column or an open dialog hides content
 * sideways, and nothing reaches past the window (wide code blocks and the swap route may still scroll).
 */
async function assertFits(page: Page, where: string, strict = false): Promise<void> {
  const overflow = (await page.evaluate(`(() => {
    const strict = ${strict};
    const exempt = strict ? 'pre, .route-scroll' : '.table-wrap, pre, .route-scroll';
    const main = document.querySelector('main');
    const scope = [...document.querySelectorAll('main *, dialog[open] *')];
    const name = (el) => el.tagName + '.' + el.className + (el.textContent ? ' "' + el.textContent.slice(0, 40) + '"' : '');
    // Visually hidden text (clipped to nothing, for screen readers) is not seen; form controls scroll by design.
    const hidden = (el) => { for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).clip !== 'auto') return true; return false; };
    const wide = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest(exempt) && !hidden(el));
    const boxes = strict ? scope.filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible' && !el.closest(exempt) && !el.matches('input, textarea, select') && !hidden(el)) : [];
    return { doc: document.documentElement.scrollWidth - window.innerWidth, main: main ? main.scrollWidth - main.clientWidth : 0,
             wide: wide.slice(0, 3).map(name), boxes: boxes.slice(0, 3).map((el) => name(el) + ' ' + el.scrollWidth + '>' + el.clientWidth) };
  })()`)) as { doc: number; main: number; wide: string[]; boxes: string[] };
  const fits = overflow.doc <= 0 && overflow.main <= 0 && (!strict || (overflow.wide.length === 0 && overflow.boxes.length === 0));
  assert.ok(fits, `${where} overflows sideways: ${JSON.stringify(overflow)}`);
}

/** Every page at 1280×800, 900×700, 700×700 and 390×844 (a phone): axe-core finds nothing serious, nothing overflows, a screenshot of each. */
describe('every page: accessibility, narrow windows, screenshots', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    proc = await startUiBackend({ args: ['-mcp', 'http://127.0.0.1:9/mcp'] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors = watchErrors(page);
    await page.goto(proc.url + '/');
    await page.getByLabel('Pairing code').waitFor();
    await assertAccessible(page, 'pairing screen');
    await screenshot(page, 'tour-pairing-1280x800');
    await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    // The UI opens on the chat page; the settings pages follow in the navigation.
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
    const credential = await pageCredential(page);
    const call = async (method: string, p: string, body: unknown) => {
      const res = await api(proc.url, method, p, { credential, body });
      assert.ok(res.status < 300, `${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await call('POST', '/api/config/providers', {
      id: 'deepseek',
      name: 'DeepSeek',
      type: 'compat',
      base_url: 'https://api.deepseek.com/v1',
      api_key: 'sk-test-0000000000001234',
      models: [
        { id: 'deepseek-chat', name: 'DeepSeek Chat', context_window: 64000, max_output_tokens: 8192, supports_tools: true },
        { id: 'deepseek-reasoner', name: 'DeepSeek Reasoner', context_window: 64000, supports_thinking: true },
      ],
    });
    await call('PUT', '/api/config/defaults', { provider: 'deepseek', model: 'deepseek-chat' });
    await call('POST', '/api/profiles', { id: 'writer', language: 'zh', model: 'deepseek:deepseek-reasoner' });
    const ws = await call('POST', '/api/workspaces', { name: 'Research notes for the quarterly report' });
    await call('PUT', `/api/workspaces/${ws.id}`, { profile_id: 'writer' });
    await call('POST', '/api/mcp/global/servers', {
      name: 'filesystem',
      server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/Documents/projects'] },
    });
    await call('PUT', '/api/skills/summarize', {
      content: '---\nname: summarize\ndescription: Summarise long documents into short bullet points.\n---\n\nBody.\n',
    });
    await call('POST', '/api/backups', { kind: 'manual' });
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
  });

  for (const [width, height] of VIEWPORTS) {
    it(`at ${width}×${height}`, async () => {
      await page.setViewportSize({ width, height });
      for (const [route, title] of PAGES) {
        await page.goto(`${proc.url}/#/${route}`);
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        await screenshot(page, `tour-${route}-${width}x${height}`);
        await assertAccessible(page, `${route} at ${width}×${height}`);
        await assertFits(page, `${route} at ${width}×${height}`, width <= 600);
      }
    });
  }

  it('at 390×844 the tables are stacked cards: every row, its labels and actions fit, in both languages and themes', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // Every settings table has a row (set up above); the devices table lists this browser.
    const rows = [
      ['providers', 'DeepSeek'],
      ['profiles', 'writer'],
      ['workspaces', 'Research notes'],
      ['tools', 'filesystem'],
      ['skills', 'summarize'],
      ['backups', 'Manual'],
      ['connection', 'Revoke'],
    ] as const;
    for (const [route, text] of rows) {
      await page.goto(`${proc.url}/#/${route}`);
      const row = page.getByRole('row').filter({ hasText: text });
      await row.first().waitFor();
      // Each cell keeps its column header for screen readers while the header row is hidden.
      assert.ok((await page.getByRole('columnheader').count()) > 1, `${route}: column headers exposed`);
      for (const button of await row.first().getByRole('button').all()) {
        const box = (await button.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= 390, `${route}: a row action is off screen (${JSON.stringify(box)})`);
      }
      await row.first().scrollIntoViewIfNeeded();
      await screenshot(page, `tour-rows-${route}-390x844`);
      await assertFits(page, `${route} rows at 390×844`, true);
    }
    await page.goto(`${proc.url}/#/providers`);
    await page.getByRole('row').filter({ hasText: 'DeepSeek' }).waitFor();
    // Stacked, it is still a table to a screen reader: headers, rows and cells (the labels are not read twice).
    const tree = await page.getByRole('table').ariaSnapshot();
    for (const line of [
      'columnheader "API key"',
      'columnheader "Base URL"',
      'row "DeepSeek',
      'cell "Key set"',
      'cell "https://api.deepseek.com/v1"',
    ]) {
      assert.ok(tree.includes(line), `the providers table as a screen reader gets it lacks ${line}:\n${tree}`);
    }
    // The models editor (in the provider dialog) and the JSON import preview are tables too.
    await page.getByRole('button', { name: 'Edit DeepSeek' }).click();
    const editor = page.getByRole('dialog', { name: /Edit provider/ });
    await editor.getByLabel('Model ID 2').scrollIntoViewIfNeeded();
    await screenshot(page, 'tour-models-editor-390x844');
    await assertAccessible(page, 'the models editor at 390×844');
    await assertFits(page, 'the models editor at 390×844', true);
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${proc.url}/#/tools`);
    await page.getByRole('button', { name: 'Import JSON' }).click();
    const imp = page.getByRole('dialog', { name: 'Import tool servers' });
    await imp
      .getByLabel('JSON snippet')
      .fill(
        JSON.stringify({ mcpServers: { docs: { url: 'https://docs.example.com/mcp/with/a/rather/long/path', always_allow: ['search'] } } }),
      );
    await imp.getByRole('table', { name: 'Servers to import' }).getByRole('row').filter({ hasText: 'docs.example.com' }).waitFor();
    await screenshot(page, 'tour-import-preview-390x844');
    await assertAccessible(page, 'the import preview at 390×844');
    await assertFits(page, 'the import preview at 390×844', true);
    await page.keyboard.press('Escape');
    // Chinese labels and the dark theme at phone width.
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '工具服务器', level: 1 }).waitFor();
    await page.getByLabel('主题').selectOption('dark');
    for (const [route] of rows) {
      await page.goto(`${proc.url}/#/${route}`);
      await page.locator('h1').waitFor();
      await page.waitForLoadState('networkidle');
      await page.getByRole('row').nth(1).scrollIntoViewIfNeeded();
      await screenshot(page, `tour-zh-dark-${route}-390x844`);
      await assertAccessible(page, `${route} in Chinese, dark, at 390×844`);
      await assertFits(page, `${route} in Chinese, dark, at 390×844`, true);
    }
    await page.getByLabel('主题').selectOption('system');
    await page.getByLabel('语言').selectOption('auto');
    await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
  });

  it('in Chinese at 1280×800 and 900×700', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${proc.url}/#/providers`);
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '模型服务商', level: 1 }).waitFor();
    for (const [width, height] of [VIEWPORTS[0], VIEWPORTS[1]]) {
      await page.setViewportSize({ width, height });
      for (const [route] of PAGES) {
        await page.goto(`${proc.url}/#/${route}`);
        await page.locator('h1').waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, `tour-zh-${route}-${width}x${height}`);
        await assertAccessible(page, `${route} in Chinese at ${width}×${height}`);
        await assertFits(page, `${route} in Chinese at ${width}×${height}`);
      }
    }
    await page.getByLabel('语言').selectOption('auto');
    await page.getByRole('heading', { name: 'Connection', level: 1 }).waitFor();
  });

  it('in the dark theme: every page passes axe, the choice survives a reload, System follows the OS', async () => {
    const background = () => page.evaluate('getComputedStyle(document.documentElement).backgroundColor') as Promise<string>;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${proc.url}/#/backups`);
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    assert.equal(await background(), 'rgb(245, 246, 248)', 'light by default under a light OS');
    await page.getByLabel('Theme').selectOption('dark');
    assert.equal(await background(), 'rgb(11, 17, 32)');
    await page.reload();
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    assert.equal(await background(), 'rgb(11, 17, 32)', 'still dark after a reload');
    assert.equal(await page.getByLabel('Theme').inputValue(), 'dark');
    for (const [width, height] of [VIEWPORTS[0], VIEWPORTS[2]]) {
      await page.setViewportSize({ width, height });
      for (const [route, title] of PAGES) {
        await page.goto(`${proc.url}/#/${route}`);
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        await screenshot(page, `tour-dark-${route}-${width}x${height}`);
        await assertAccessible(page, `${route} dark at ${width}×${height}`);
      }
    }
    // System: follows prefers-color-scheme, live.
    await page.getByLabel('Theme').selectOption('system');
    assert.equal(await background(), 'rgb(245, 246, 248)');
    // (No waitForFunction: it evaluates a string, which the page's CSP forbids.)
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    assert.equal(await background(), 'rgb(11, 17, 32)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' });
  });

  it('the UI language stays what the user chose when a profile answers in Chinese', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${proc.url}/#/profiles`);
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'writer' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'en');
    assert.deepEqual(errors, []);
  });
});
