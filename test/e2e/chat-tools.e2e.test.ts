import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import type { BackendProcess } from '../helpers/backend-process.js';
import { everythingStdio } from '../mcp/mcp-test-kit.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairedContext, startPairedUi } from './paired-page.js';
import { apiAs, axeViolations, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

/** The model calls a tool, then answers once the result is in the request. */
function toolRound(
  prompt: string,
  call: { name: string; arguments: Record<string, unknown>; id: string },
  answer: string,
): AimockFixture[] {
  return [
    { match: { userMessage: prompt, hasToolResult: true }, response: { content: answer } },
    { match: { userMessage: prompt, hasToolResult: false }, response: { toolCalls: [call] } },
  ];
}

const FIXTURES: AimockFixture[] = [
  ...toolRound('echo but I will deny', { name: 'ev__echo', arguments: { message: 'secret' }, id: 'call_deny' }, 'Fine, not echoed.'),
  ...toolRound('add twenty and twenty-two', { name: 'ev__get-sum', arguments: { a: 20, b: 22 }, id: 'call_sum' }, 'It is 42.'),
  ...toolRound('echo and remember', { name: 'ev__echo', arguments: { message: 'remembered' }, id: 'call_remember' }, 'Echoed.'),
];

describe('chat tool calls in Chromium: cards, Allow / Deny / Always allow', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };

  before(async () => {
    mock = await Aimock.start(FIXTURES);
    const paired = await startPairedUi();
    proc = paired.proc;
    const call = apiAs(proc.url, paired.credential);
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 64_000, supports_tools: true }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('PUT', '/api/mcp/global', { mcpServers: { ev: everythingStdio() } });
    await call('POST', '/api/workspaces', { name: 'Tools' });
    browser = await launchChromium();
    // Paired through the API: the page starts with the credential a pairing would have stored.
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

  it('a call waiting for approval shows server, tool and arguments; Deny returns an error result to the model', async () => {
    await send('echo but I will deny');
    const card = conversation().getByRole('region', { name: 'Tool call ev · echo' }).last();
    await card.getByText('Waiting for your approval').waitFor({ timeout: LONG });
    await card.getByText('"message": "secret"').waitFor();
    await screenshot(page, 'chat-07-tool-waiting');
    assert.deepEqual(await axeViolations(page), []);
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByText('Failed').waitFor({ timeout: LONG });
    await card.getByText(/denied/).waitFor();
    await conversation().getByText('Fine, not echoed.').waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: LONG });
  });

  it('Allow runs the call and its result shows in the card', async () => {
    await send('add twenty and twenty-two');
    const card = conversation().getByRole('region', { name: 'Tool call ev · get-sum' }).last();
    await card.getByRole('button', { name: 'Allow', exact: true }).click({ timeout: LONG });
    await card.getByText('Done').waitFor({ timeout: LONG });
    await card.getByText(/42/).first().waitFor();
    await conversation().getByText('It is 42.').waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: LONG });
    await screenshot(page, 'chat-08-tool-done');
  });

  it('Always allow this tool runs it and writes always_allow, so the next call does not ask', async () => {
    await send('echo and remember');
    const card = conversation().getByRole('region', { name: 'Tool call ev · echo' }).last();
    await card.getByRole('button', { name: 'Always allow this tool' }).click({ timeout: LONG });
    await card.getByText('Echo: remembered').waitFor({ timeout: LONG });
    await conversation().getByText('Echoed.', { exact: true }).waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: LONG });
    const file = JSON.parse(readFileSync(path.join(proc.dataDir, 'global_mcp_servers.json'), 'utf8'));
    assert.deepEqual(file.mcpServers.ev.always_allow, ['echo']);

    await page.getByRole('button', { name: 'New chat' }).first().click();
    await conversation().getByText('Send a message to start.').waitFor();
    await send('echo and remember');
    await conversation().getByText('Echoed.', { exact: true }).waitFor({ timeout: LONG });
    const again = conversation().getByRole('region', { name: 'Tool call ev · echo' }).last();
    assert.equal(await again.getByRole('button', { name: 'Allow', exact: true }).count(), 0);
    await again.getByText('Done').waitFor();
    assert.deepEqual(errors, []);
  });
});
