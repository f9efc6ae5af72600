import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';

function apiCall(page: Page, method: string, suffix: string): Promise<Response> {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === suffix);
}

/** A third-party provider in the OpenRouter style: its model list reports context windows. */
async function fakeRouter(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/api/v1/models') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        data: [
          {
            id: 'deepseek/deepseek-r1',
            name: 'DeepSeek: R1',
            context_length: 163840,
            top_provider: { max_completion_tokens: 32768 },
            supported_parameters: ['tools', 'reasoning'],
          },
          { id: 'meta-llama/llama-3.3-70b', name: 'Llama 3.3 70B', context_length: 131072 },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, close: () => server.close() };
}

/** Issue 18, the friction list: forms, providers, tool-server import, logs. */
describe('management screens without friction', { timeout: 240_000 }, () => {
  let proc: BackendProcess;
  let router: Awaited<ReturnType<typeof fakeRouter>>;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const file = (name: string) => readFileSync(path.join(proc.dataDir, name), 'utf8');

  before(async () => {
    router = await fakeRouter();
    // A config.yaml with a lax mode: the repair warning must reach stderr.
    const dataDir = path.join(tempDir('svc-friction-'), 'data');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(dataDir, 'config.yaml'), 'providers: []\n');
    chmodSync(path.join(dataDir, 'config.yaml'), 0o644);
    proc = await startUiBackend({ dataDir });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors = watchErrors(page);
    // The UI opens on the chat page; the settings pages follow in the navigation.
    await pairInPage(page, proc);
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    router?.close();
    proc?.cleanup();
  });

  it('a preset fills type and base URL, the id follows the name, and closing asks before discarding', async () => {
    const opener = page.getByRole('button', { name: 'Add provider' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Add provider' });
    await dialog.getByLabel('Preset').selectOption({ label: 'LM Studio' });
    assert.equal(await dialog.getByLabel('Base URL').inputValue(), 'http://127.0.0.1:1234/v1');
    assert.equal(await dialog.getByLabel('Type').inputValue(), 'compat');
    assert.equal(await dialog.getByLabel('Provider ID').inputValue(), 'lm-studio');
    await dialog.getByLabel('Preset').selectOption({ label: 'Anthropic' });
    assert.equal(await dialog.getByLabel('Type').inputValue(), 'native');
    await dialog.getByLabel('Name', { exact: true }).fill('My Router (work)');
    assert.equal(await dialog.getByLabel('Provider ID').inputValue(), 'my-router-work');
    await page.keyboard.press('Escape');
    const ask = dialog.getByRole('alertdialog', { name: 'Discard your changes?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    assert.equal(await dialog.getByLabel('Name', { exact: true }).inputValue(), 'My Router (work)');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await ask.getByRole('button', { name: 'Discard' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction('document.activeElement?.textContent === "Add provider"');
  });

  it('editing a provider tests it at once; imported models carry the context windows the provider reports', async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    const add = page.getByRole('dialog', { name: 'Add provider' });
    await add.getByLabel('Preset').selectOption({ label: 'OpenRouter' });
    await add.getByLabel('Base URL').fill(router.url + '/');
    await add.getByLabel('API key').fill('sk-or-test-1234567890');
    const created = apiCall(page, 'POST', '/api/config/providers');
    await add.getByRole('button', { name: 'Create provider' }).click();
    assert.equal((await created).status(), 201);
    assert.match(file('config.yaml'), new RegExp(`base_url: ${router.url}\\n`));

    await page.getByRole('button', { name: 'Edit OpenRouter' }).click();
    const edit = page.getByRole('dialog', { name: /Edit provider/ });
    await edit.getByText(/Connected in \d+ ms/).waitFor();
    await edit.getByRole('button', { name: 'Import 2 models' }).click();
    await edit.getByText('2 models were added to this provider.').waitFor();
    assert.equal(await edit.getByLabel('Context window 1').inputValue(), '163840');
    assert.equal(await edit.getByLabel('Max output tokens 1').inputValue(), '32768');
    assert.equal(await edit.getByLabel('Context window 2').inputValue(), '131072');
    await screenshot(page, 'friction-provider-test-in-form');
    const saved = apiCall(page, 'PUT', '/api/config/providers/openrouter');
    await edit.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 200);
    const yaml = file('config.yaml');
    assert.match(yaml, /id: deepseek\/deepseek-r1[\s\S]*context_window: 163840/);
    assert.match(yaml, /context_window: 131072/);
  });

  it('warns when the default model belongs to a disabled provider', async () => {
    await page.getByLabel('Default provider and model').selectOption('openrouter:deepseek/deepseek-r1');
    const put = apiCall(page, 'PUT', '/api/config/defaults');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    assert.equal((await put).status(), 200);
    await page.getByRole('button', { name: 'Edit OpenRouter' }).click();
    const edit = page.getByRole('dialog', { name: /Edit provider/ });
    await edit.getByRole('switch', { name: 'Enabled' }).uncheck();
    const saved = apiCall(page, 'PUT', '/api/config/providers/openrouter');
    await edit.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 200);
    await page.getByText('The default model deepseek/deepseek-r1 belongs to the disabled provider OpenRouter').waitFor();
  });

  it('tool servers: env lines without "=" are flagged, and Import JSON previews servers and names conflicts', async () => {
    await page.getByRole('link', { name: 'Tool servers' }).click();
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add tool server' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    // Every invalid field at once.
    await dialog.getByText('Give the server a name.').waitFor();
    await dialog.getByText('Command is required.').waitFor();
    await dialog.getByLabel('Server name').fill('github');
    await dialog.getByLabel('Command').fill('npx');
    await dialog.getByLabel('Environment').fill('GITHUB_TOKEN=ghp_x\nDEBUG');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Line 2 has no “=”: write NAME=value.').waitFor();
    await dialog.getByLabel('Environment').fill('GITHUB_TOKEN=ghp_x\nDEBUG=1');
    const saved = apiCall(page, 'POST', '/api/mcp/global/servers');
    await dialog.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 201);

    await page.getByRole('button', { name: 'Import JSON' }).click();
    const imp = page.getByRole('dialog', { name: 'Import tool servers' });
    await imp.getByLabel('JSON snippet').fill(
      JSON.stringify({
        mcpServers: {
          github: { command: 'docker', args: ['run', 'ghcr.io/github/github-mcp-server'] },
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          docs: { url: 'https://docs.example.com/mcp' },
        },
      }),
    );
    const preview = imp.getByRole('table', { name: 'Servers to import' });
    await preview.getByRole('row').filter({ hasText: 'github' }).getByText('already exists: skipped').waitFor();
    await preview.getByRole('row').filter({ hasText: 'memory' }).getByText('new').waitFor();
    await screenshot(page, 'friction-import-json');
    await imp.getByRole('button', { name: 'Import 2' }).click();
    await imp.getByText('Imported 2 server(s).').waitFor();
    const servers = JSON.parse(file('global_mcp_servers.json')).mcpServers;
    assert.deepEqual(Object.keys(servers).sort(), ['docs', 'github', 'memory']);
    assert.equal(servers.github.command, 'npx');
    await imp.getByRole('button', { name: 'Close' }).click();
  });

  it('logs: warnings are on stderr, and "No line matches the filter" only with a filter', async () => {
    await page.getByRole('link', { name: 'Logs' }).click();
    const log = page.getByRole('log', { name: 'Backend log' });
    await log.getByText('listening on').first().waitFor();
    assert.ok(proc.lines.some((l) => l.stream === 'stderr' && /^warning: .*config\.yaml had a lax mode/.test(l.line)));
    await page.getByLabel('Stream').selectOption('stderr');
    await log.getByText(/warning: .*had a lax mode/).waitFor();
    assert.equal(await log.getByText('No line matches the filter.').count(), 0);
    await page.getByLabel('Filter').fill('nothing-like-this');
    await log.getByText('No line matches the filter.').waitFor();
    await page.getByLabel('Filter').fill('');
    assert.deepEqual(errors, []);
  });
});
