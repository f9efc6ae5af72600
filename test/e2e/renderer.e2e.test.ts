import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import { BackendProcess } from '../helpers/backend-process.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { startUiBackend } from './paired-page.js';

const TOKEN_B = '0x55d398326f99059fF775485246999027B3197955';
const WALLET = '0x1111111111111111111111111111111111111111';

/** Waits for the API call a UI action makes, so assertions never race the write. */
function apiCall(page: Page, method: string, suffix: string | RegExp): Promise<Response> {
  return page.waitForResponse((r) => {
    const p = new URL(r.url()).pathname;
    return r.request().method() === method && (typeof suffix === 'string' ? p === suffix : suffix.test(p));
  });
}

describe('renderer in Chromium against the real backend', { timeout: 180_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let swapUrl: string;
  const file = (name: string) => readFileSync(path.join(proc.dataDir, name), 'utf8');

  before(async () => {
    proc = await startUiBackend();
    swapUrl = (await proc.waitForLine(/^swap builder listening on (http:\/\/\S+)$/))[1];
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 }, locale: 'en-US' });
    errors = watchErrors(page);
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
  });

  it('serves the UI at / with a CSP, and a wrong pairing code is explained', async () => {
    const res = await page.goto(proc.url + '/');
    assert.equal(res?.status(), 200);
    assert.match(res!.headers()['content-security-policy'] ?? '', /connect-src 'self' ws:/);
    await page.getByRole('heading', { name: 'Connect to your backend' }).waitFor();
    const code = proc.pairingCode()!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await page.getByLabel('Pairing code').fill(wrong);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByText('That code is wrong or has expired').waitFor();
    await page.getByLabel('Pairing code').fill('12ab');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByText('The pairing code has exactly 6 digits.').waitFor();
    await screenshot(page, '01-pairing');
  });

  it('pairs with the code from the backend log and keeps the credential across a reload', async () => {
    await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    // The UI opens on the chat page; the settings pages follow in the navigation.
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
    await page.getByRole('status', { name: 'Live updates' }).getByText('Live').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
  });

  it('tells a second browser up front that the backend is already paired and how to reset it', async () => {
    const other = await browser.newPage();
    try {
      await other.goto(proc.url + '/');
      const message = other.getByRole('alert').filter({ hasText: /This backend is already paired with/ });
      await message.waitFor();
      assert.match(await message.innerText(), /reset-pairing/);
      assert.equal(await other.getByLabel('Pairing code').count(), 0);
    } finally {
      await other.close();
    }
  });

  it('adds a provider, flagging every invalid field at once, and config.yaml changes', async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add provider' });
    await dialog.getByLabel('Provider ID').fill('local');
    await dialog.getByLabel('Name', { exact: true }).fill('Local LLM');
    // A bare host:port and a trailing slash are fixed, not refused.
    await dialog.getByLabel('Base URL').fill('127.0.0.1:11434/v1/');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await dialog.getByLabel('Context window 1').fill('-5');
    await dialog.getByLabel('Thinking 1').check();
    let requests = 0;
    const count = (r: { url(): string; method(): string }) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/config/providers')) requests += 1;
    };
    page.on('request', count);
    await dialog.getByRole('button', { name: 'Create provider' }).click();
    await dialog.getByText('Model ID 1 is required.').waitFor();
    await dialog.getByText('Context window 1 must be a whole number above 0.').waitFor();
    assert.equal(await dialog.getByLabel('Model ID 1').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), 'Model ID 1');
    assert.equal(await dialog.getByLabel('Base URL').inputValue(), 'http://127.0.0.1:11434/v1');
    page.off('request', count);
    assert.equal(requests, 0);
    await screenshot(page, '02-provider-validation');

    await dialog.getByLabel('Model ID 1').fill('llama3');
    await dialog.getByLabel('Context window 1').fill('8192');
    const created = apiCall(page, 'POST', '/api/config/providers');
    await dialog.getByRole('button', { name: 'Create provider' }).click();
    assert.equal((await created).status(), 201);
    await page.getByRole('row').filter({ hasText: 'Local LLM' }).waitFor();
    const yaml = file('config.yaml');
    assert.match(yaml, /id: local/);
    assert.match(yaml, /base_url: http:\/\/127\.0\.0\.1:11434\/v1\n/);
    assert.match(yaml, /id: llama3/);
    assert.match(yaml, /context_window: 8192/);
    await screenshot(page, '03-providers');
  });

  it('edits the provider and config.yaml follows', async () => {
    await page.getByRole('button', { name: 'Edit Local LLM' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit provider/ });
    await dialog.getByLabel('Name', { exact: true }).fill('Local Llama');
    const saved = apiCall(page, 'PUT', '/api/config/providers/local');
    await dialog.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 200);
    await page.getByRole('row').filter({ hasText: 'Local Llama' }).waitFor();
    assert.match(file('config.yaml'), /name: Local Llama/);
  });

  it('creates a profile on that model and binds it to a new workspace', async () => {
    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'New profile' });
    await dialog.getByLabel('Profile ID').fill('writer');
    await dialog.getByLabel('Model', { exact: true }).selectOption('local:llama3');
    await dialog.getByRole('switch', { name: 'Use extended thinking' }).check();
    await dialog.getByLabel('Compression threshold').fill('70');
    const created = apiCall(page, 'POST', '/api/profiles');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    assert.equal((await created).status(), 201);
    await page.getByRole('row').filter({ hasText: 'writer' }).waitFor();
    const profile = file('profiles/writer.yaml');
    assert.match(profile, /model: local:llama3/);
    assert.match(profile, /threshold_percent: 70/);
    await screenshot(page, '04-profiles');

    await page.getByRole('link', { name: 'Workspaces' }).click();
    await page.getByLabel('Workspace name').fill('Research');
    const made = apiCall(page, 'POST', '/api/workspaces');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    assert.equal((await made).status(), 201);
    const bind = page.getByLabel('Profile for Research');
    await bind.waitFor();
    const bound = apiCall(page, 'PUT', /^\/api\/workspaces\/[^/]+$/);
    await bind.selectOption('writer');
    assert.equal((await bound).status(), 200);
    const index = JSON.parse(file('workspaces.json')) as { workspaces: { name: string; profile_id: string | null }[] };
    assert.deepEqual(
      index.workspaces.map((w) => [w.name, w.profile_id]),
      [['Research', 'writer']],
    );
    await screenshot(page, '05-workspaces');
  });

  it('adds a global tool server (URL error at its field first) and a skill', async () => {
    await page.getByRole('link', { name: 'Tool servers' }).click();
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add tool server' });
    await dialog.getByLabel('Server name').fill('search');
    await dialog.getByLabel('Transport').selectOption('http');
    await dialog.getByLabel('Server URL').fill('ftp://example.com/mcp');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog
      .locator('.field')
      .filter({ has: page.getByLabel('Server URL') })
      .getByRole('alert')
      .filter({ hasText: 'An absolute http:// or https:// URL.' })
      .waitFor();
    await dialog.getByLabel('Server URL').fill('https://example.com/mcp');
    const saved = apiCall(page, 'POST', '/api/mcp/global/servers');
    await dialog.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 201);
    await page.getByRole('row').filter({ hasText: 'https://example.com/mcp' }).waitFor();
    assert.deepEqual(JSON.parse(file('global_mcp_servers.json')).mcpServers.search, { type: 'http', url: 'https://example.com/mcp' });
    await screenshot(page, '10-tool-servers');

    await page.getByRole('link', { name: 'Skills' }).click();
    await page.getByRole('button', { name: 'New skill' }).click();
    const skill = page.getByRole('dialog', { name: 'New skill' });
    await skill.getByLabel('Skill name').fill('summarize');
    const put = apiCall(page, 'PUT', '/api/skills/summarize');
    await skill.getByRole('button', { name: 'Save' }).click();
    assert.ok([200, 201].includes((await put).status()));
    await page.getByRole('row').filter({ hasText: 'What this skill does' }).waitFor();
    assert.match(file('skills/summarize/SKILL.md'), /^---\nname: summarize\n/);
    await screenshot(page, '11-skills');
  });

  it('deletes a provider after confirmation and config.yaml loses it', async () => {
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.getByRole('button', { name: 'Delete Local Llama' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete provider' });
    await confirm.getByText('Delete “Local Llama”?').waitFor();
    const deleted = apiCall(page, 'DELETE', '/api/config/providers/local');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    assert.equal((await deleted).status(), 204);
    await page.getByText('No providers yet').waitFor();
    assert.doesNotMatch(file('config.yaml'), /Local Llama/);
  });

  it('shows a new backend log line as it happens, filterable', async () => {
    await page.getByRole('link', { name: 'Logs' }).click();
    const log = page.getByRole('log', { name: 'Backend log' });
    await log.getByText('listening on').first().waitFor();
    const marker = `e2e-${Date.now()}`;
    await fetch(`${proc.url}/health?marker=${marker}`);
    await log.getByText(marker).waitFor();
    await page.getByLabel('Filter').fill(marker);
    await page.getByText(/^1 of \d+ lines$/).waitFor();
    await screenshot(page, '06-logs');
    await page.getByLabel('Filter').fill('');
  });

  it('switches the whole UI to Chinese and back', async () => {
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '日志', level: 1 }).waitFor();
    await page.getByRole('link', { name: '模型服务商' }).waitFor();
    assert.equal(await page.evaluate('document.documentElement.lang'), 'zh-CN');
    await page.getByRole('link', { name: '兑换路由' }).click();
    await page.getByLabel('输入代币').waitFor();
    await screenshot(page, '07-swap-zh');
    await page.getByLabel('语言').selectOption('en');
    await page.getByRole('heading', { name: 'Swap builder', level: 1 }).waitFor();
  });

  it('shows the route builder’s validation error at the field it names', async () => {
    await page.getByLabel('Route builder URL').fill(swapUrl);
    await page.getByLabel('Token in').fill('0x1234');
    await page.getByLabel('Token out').fill(TOKEN_B);
    await page.getByLabel('Amount in').fill('1000000000000000000');
    await page.getByLabel('Sender').fill(WALLET);
    const built = apiCall(page, 'POST', '/api/v1/route/build');
    await page.getByRole('button', { name: 'Build route' }).click();
    assert.equal((await built).status(), 400);
    const field = page.locator('.field').filter({ has: page.getByLabel('Token in') });
    await field.getByRole('alert').filter({ hasText: 'tokenIn must be 0x followed by 40 hex digits' }).waitFor();
    assert.equal(await page.getByLabel('Token in').getAttribute('aria-invalid'), 'true');
    await screenshot(page, '08-swap-error');
  });

  it('returns to pairing when the backend stops accepting the credential', async () => {
    await page.getByRole('link', { name: 'Connection' }).click();
    await page.getByText(/\(API 1, Node/).waitFor();
    const nodeId = (JSON.parse(file('selfhost/pairing.json')) as { node_id: string }).node_id;
    await page.getByText(nodeId, { exact: true }).waitFor();
    await screenshot(page, '09-connection');
    // Keyed by the origin the UI talks to, never by the node id the server reports (DESIGN 16).
    const key = `service.credential:${proc.url}`;
    const credential = (await page.evaluate(`localStorage.getItem('${key}')`)) as string;
    assert.match(credential, /^svc_/);
    const res = await fetch(`${proc.url}/api/selfhost/pairing/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}` },
    });
    assert.equal(res.status, 200);
    await page.getByText('no longer accepts this window’s credential').waitFor();
    await page.getByLabel('Pairing code').waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('${key}')`), null);
    assert.deepEqual(errors, []);
  });
});
