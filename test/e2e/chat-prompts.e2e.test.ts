import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import type { BackendProcess } from '../helpers/backend-process.js';
import { everythingStdio } from '../mcp/mcp-test-kit.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairedContext, startPairedUi } from './paired-page.js';
import { apiAs, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

/** DESIGN 9 in the composer: `/` offers the tool servers' prompts, "Attach" their resources. */
describe('MCP prompts and resources in the composer (Chromium)', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let call: ReturnType<typeof apiAs>;

  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const box = () => page.getByRole('textbox', { name: 'Message' });

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: "What's weather in Lyon, Rhône?" }, response: { content: 'Sunny in Lyon.' } },
      // Streamed slowly: the stored question (its resource as a file) shows while the reply still runs.
      { match: { userMessage: 'read the attached architecture' }, response: { content: 'Read it.' }, chunkSize: 1, latency: 400 },
    ]);
    const paired = await startPairedUi();
    proc = paired.proc;
    call = apiAs(proc.url, paired.credential);
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 64_000, supports_tools: true }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('PUT', '/api/mcp/global', { mcpServers: { ev: everythingStdio() } });
    await call('POST', '/api/workspaces', { name: 'Prompts' });
    browser = await launchChromium();
    const context = await pairedContext(browser, proc, paired.credential);
    page = await context.newPage();
    errors = watchErrors(page);
    await page.goto(proc.url + '/');
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await conversation().getByText('Send a message to start.').waitFor();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
  });

  it('/ lists the prompts; one with arguments asks for them and inserts the rendered prompt', async () => {
    await box().fill('/');
    const menu = page.getByRole('listbox', { name: 'Prompts of the tool servers' });
    await menu.getByRole('option', { name: /\/simple-prompt/ }).waitFor({ timeout: LONG });
    await box().pressSequentially('args');
    await menu.getByRole('option', { name: /\/args-prompt/ }).waitFor();
    assert.equal(await menu.getByRole('option').count(), 1, 'the menu filters as you type');
    await screenshot(page, 'mcp-prompt-menu');
    await assertAccessible(page, 'the prompt menu');
    await box().press('Enter');
    const form = page.getByRole('dialog', { name: 'Prompt “args-prompt”' });
    await form.getByRole('button', { name: 'Insert' }).click();
    await form.getByText('city is required.').waitFor();
    await form.getByLabel('city', { exact: true }).fill('Lyon');
    await form.getByLabel('state (optional)').fill('Rhône');
    await screenshot(page, 'mcp-prompt-args');
    await form.getByRole('button', { name: 'Insert' }).click();
    await form.waitFor({ state: 'detached' });
    assert.equal(await box().inputValue(), "What's weather in Lyon, Rhône?");
    await box().press('Enter');
    await conversation().getByText('Sunny in Lyon.').waitFor({ timeout: LONG });
  });

  it('Escape closes the menu and a plain "/" message can still be sent', async () => {
    await box().fill('/');
    await page.getByRole('listbox', { name: 'Prompts of the tool servers' }).waitFor({ timeout: LONG });
    await box().press('Escape');
    assert.equal(await page.getByRole('listbox', { name: 'Prompts of the tool servers' }).count(), 0);
    await box().fill('');
  });

  it('a resource picked in the picker goes with the message and is stored as its attachment', async () => {
    await page.getByRole('button', { name: 'Resources', exact: true }).click();
    const picker = page.getByRole('dialog', { name: 'Attach a resource' });
    await picker.getByLabel('Filter resources').fill('architecture');
    await picker.getByRole('button', { name: 'Attach architecture.md' }).click({ timeout: LONG });
    assert.ok(await picker.getByRole('button', { name: 'architecture.md attached' }).isDisabled());
    await screenshot(page, 'mcp-resource-picker');
    await assertAccessible(page, 'the resource picker');
    await picker.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('list', { name: 'Attached resources' }).getByText('architecture.md').waitFor();
    await box().fill('read the attached architecture');
    await box().press('Enter');
    // The snapshot shows as a file of the message, downloadable like an uploaded one, while the reply streams.
    await conversation().getByRole('button', { name: 'architecture.md' }).waitFor({ timeout: LONG });
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 1, 'the reply is still streaming');
    await conversation().getByText('Read it.').waitFor({ timeout: LONG });
    assert.equal(await page.getByRole('list', { name: 'Attached resources' }).count(), 0, 'attachments go with one message');
    await conversation().getByRole('button', { name: 'architecture.md' }).waitFor({ timeout: LONG });
    await screenshot(page, 'mcp-resource-snapshot');
    const [ws] = (await call('GET', '/api/workspaces')).workspaces;
    const [session] = (await call('GET', `/api/workspaces/${ws.id}/sessions`)).sessions;
    const messages = (await call('GET', `/api/workspaces/${ws.id}/sessions/${session.id}`)).messages;
    const user = messages.filter((m: any) => m.role === 'user').at(-1);
    assert.deepEqual(
      user.blocks.map((b: any) => [b.type, b.name ?? b.text]),
      [
        ['file', 'architecture.md'],
        ['text', 'read the attached architecture'],
      ],
    );
  });

  it('in Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    const zhBox = page.getByRole('textbox', { name: '消息' });
    await zhBox.fill('/');
    await page.getByRole('listbox', { name: '工具服务器的提示词' }).waitFor({ timeout: LONG });
    await screenshot(page, 'mcp-prompt-menu-zh');
    await zhBox.fill('');
    await page.getByLabel('语言').selectOption('en');
    assert.deepEqual(errors, []);
  });
});
