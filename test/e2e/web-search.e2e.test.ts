import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import { startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { KEY, PROVIDER_HANDLERS } from '../web/provider-mocks.js';
import { PageServer } from '../web/web-servers.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';
import { apiAs, axeViolations, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

describe('web search in Chromium: settings, the globe toggle, tool cards and sources', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let brave: PageServer;
  let browser: Browser;
  let credential: string;
  let call: ReturnType<typeof apiAs>;
  const errorLists: string[][] = [];

  async function open(context: BrowserContext): Promise<Page> {
    await context.addInitScript({
      content: `localStorage.setItem(${JSON.stringify(`service.credential:${proc.url}`)}, ${JSON.stringify(credential)});`,
    });
    const page = await context.newPage();
    errorLists.push(watchErrors(page));
    return page;
  }

  before(async () => {
    const uiDir = await buildRenderer();
    brave = await PageServer.start(PROVIDER_HANDLERS.brave);
    mock = await Aimock.start([
      { match: { userMessage: 'search it', hasToolResult: true }, response: { content: 'Rust news is in [1] and [2].' } },
      {
        match: { userMessage: 'search it', hasToolResult: false },
        response: { toolCalls: [{ name: 'web_search', arguments: '{"query":"rust news","max_results":2}' }] },
      },
    ]);
    const paired = await startPaired({ env: { SERVICE_UI_DIR: uiDir } });
    proc = paired.proc;
    credential = paired.credential;
    call = apiAs(proc.url, credential);
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 64_000, supports_tools: true }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('PUT', '/api/config/web', {
      web_search: { providers: [{ id: 'brave1', type: 'brave', base_url: brave.url, api_key: KEY }], approval: 'auto' },
      web_fetch: { allow_hosts: [] },
    });
    await call('POST', '/api/workspaces', { name: 'Web' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
    await brave?.stop();
  });

  it('the Web search section lists providers with masked keys, tests them and saves changes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await open(context);
    await page.goto(`${proc.url}/#/providers`);
    const card = page.getByRole('region', { name: 'Web search' });
    await card.getByText('Stored: sea...51d4').waitFor({ timeout: LONG });
    assert.equal(await card.getByLabel('ID').first().inputValue(), 'brave1');
    assert.equal(await card.getByLabel('Type').first().inputValue(), 'brave');
    assert.ok(!(await page.content()).includes(KEY), 'the key reached the page');
    await card.getByRole('button', { name: 'Test search providers' }).click();
    await card.getByText('brave1: 2 results for "open source"').waitFor({ timeout: LONG });
    await card.getByText('Web search settings saved.').waitFor();
    await card.getByLabel('Web tool calls').selectOption('ask');
    assert.equal(await card.getByText('Web search settings saved.').count(), 0, 'an edit clears the saved notice');
    await card.getByLabel('Private hosts web_fetch may read').fill('wiki.lan:443');
    await card.getByRole('button', { name: 'Save web search' }).click();
    await card.getByText('Web search settings saved.').waitFor();
    const saved = await call('GET', '/api/config/web');
    assert.equal(saved.web_search.approval, 'ask');
    assert.deepEqual(saved.web_fetch.allow_hosts, ['wiki.lan:443']);
    assert.equal(saved.web_search.providers[0].api_key_hint, 'sea...51d4', 'saving without a new key kept the stored one');
    await screenshot(page, 'web-01-settings');
    assert.deepEqual(await axeViolations(page), []);
    // Back to running web tools without asking, for the chat below.
    await card.getByLabel('Web tool calls').selectOption('auto');
    await card.getByRole('button', { name: 'Save web search' }).click();
    await card.getByText('Web search settings saved.').waitFor();
    await context.close();
  });

  it('the globe turns search on for the session; the reply shows the search card and its sources', async () => {
    const current = await call('GET', '/api/config/web');
    assert.equal(current.web_search.approval, 'auto');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await open(context);
    await page.goto(proc.url + '/');
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText('Send a message to start.').waitFor();
    const globe = page.getByRole('button', { name: 'Web search' });
    assert.equal(await globe.getAttribute('aria-pressed'), 'false');
    // The toggle is saved on its way to a slow backend while the message is already sent: the turn
    // must still run with search on (the send waits for the saved toggle).
    const isPatch = (method: string, url: string) => method === 'PATCH' && /\/api\/workspaces\/[^/]+\/sessions\/[^/]+$/.test(url);
    await page.route('**/api/workspaces/*/sessions/*', async (route) => {
      if (isPatch(route.request().method(), route.request().url())) await new Promise((r) => setTimeout(r, 600));
      await route.continue();
    });
    const patched = page.waitForResponse((r) => isPatch(r.request().method(), r.url()));
    await globe.click();
    await page.waitForSelector('button[aria-label="Web search"][aria-pressed="true"]');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('search it');
    await box.press('Enter');
    assert.equal((await patched).status(), 200);
    const ws = (await call('GET', '/api/workspaces')) as { workspaces?: { id: string }[] } | { id: string }[];
    const wid = (Array.isArray(ws) ? ws : (ws.workspaces ?? []))[0]!.id;
    const sessions = await call('GET', `/api/workspaces/${wid}/sessions`);
    assert.equal(sessions.sessions[0].web_search_override, true);
    await conversation.getByText('Rust news is in [1] and [2].').waitFor({ timeout: LONG });
    await conversation.getByText('Searched the web for “rust news”').waitFor();
    const sources = conversation.getByRole('region', { name: 'Sources' }).last();
    await sources.waitFor({ timeout: LONG });
    const links = sources.getByRole('link');
    assert.equal(await links.count(), 2);
    assert.equal(await links.nth(0).getAttribute('href'), 'https://brave.example/1');
    assert.match((await links.nth(0).textContent()) ?? '', /Brave one · brave\.example/);
    assert.equal(await links.nth(1).getAttribute('href'), 'https://brave.example/2');
    await screenshot(page, 'web-02-sources');
    assert.deepEqual(await axeViolations(page), []);
    await context.close();
  });

  it('at 390 px the message box keeps at least 200 px beside the globe, attach, resource and send buttons', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', isMobile: true, hasTouch: true });
    const page = await open(context);
    await page.goto(proc.url + '/');
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await page.getByRole('region', { name: 'Conversation' }).getByText('Send a message to start.').waitFor();
    const box = page.locator('form.composer textarea');
    await box.waitFor({ state: 'visible' });
    const rect = await box.boundingBox();
    assert.ok(rect, 'the message box is not shown');
    const width = rect.width;
    assert.ok(width >= 200, `the message box is ${width} px wide`);
    const composer = page.locator('form.composer');
    for (const name of ['Web search', 'Attach files', 'Resources', 'Send']) {
      const b = await composer.getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(b, `${name} is not shown`);
      assert.ok(b.x >= 0 && b.x + b.width <= 390, `${name} is outside the screen`);
    }
    await screenshot(page, 'web-03-composer-390');
    assert.deepEqual(await axeViolations(page), []);
    await context.close();
    assert.deepEqual(errorLists.flat(), []);
  });
});
