import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BackendProcess } from '../helpers/backend-process.js';
import { startOAuthMcp, type OAuthMcp } from '../mcp/fixtures/oauth-mcp-server.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';

/** Issue 24 in the UI: approvals in the editor and the import preview, failures in words. */
describe('tool servers page: approvals, import preview, status', { timeout: 240_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let remote: OAuthMcp;
  const servers = () => JSON.parse(readFileSync(path.join(proc.dataDir, 'global_mcp_servers.json'), 'utf8')).mcpServers;

  before(async () => {
    remote = await startOAuthMcp();
    proc = await startUiBackend();
    writeFileSync(
      path.join(proc.dataDir, 'global_mcp_servers.json'),
      JSON.stringify({
        mcpServers: {
          notes: { command: 'no-such-notes-server', approval: 'auto', always_allow: ['read_note', 'list_notes'] },
          secure: { type: 'http', url: remote.url },
        },
      }),
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors = watchErrors(page);
    await pairInPage(page, proc);
    await page.getByRole('link', { name: 'Tool servers' }).click();
    await page.getByRole('heading', { name: 'Tool servers', level: 1 }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await remote?.stop();
  });

  it('the editor shows the approval mode and always-allowed tools; one tool can be revoked', async () => {
    await page.getByRole('button', { name: 'Edit notes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit tool server “notes”' });
    assert.equal(await dialog.getByLabel('Before a tool runs').inputValue(), 'auto');
    await dialog.getByText('Every tool of this server runs as soon as the model calls it.', { exact: false }).waitFor();
    await dialog.getByText('read_note').waitFor();
    await screenshot(page, 'mcp-editor-approvals');
    await assertAccessible(page, 'the server editor');
    await dialog.getByRole('button', { name: 'Revoke “always allow” for read_note' }).click();
    await dialog.getByLabel('Before a tool runs').selectOption('ask');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const notes = servers().notes;
    assert.deepEqual(notes.always_allow, ['list_notes']);
    assert.equal(notes.approval, undefined, 'ask is the default: not written');
  });

  it('the status says in words why a server failed, after Connect', async () => {
    const row = page.getByRole('row').filter({ hasText: 'no-such-notes-server' });
    await row.getByRole('button', { name: 'Connect notes now' }).click();
    await row.getByText('failed').waitFor();
    await row.getByText(/command not found: no-such-notes-server \(searched .*\/usr\/bin/).waitFor();
    await screenshot(page, 'mcp-status-failed');
  });

  it('a server that wants OAuth says so; Sign in opens its page, the service takes the callback, Sign out forgets it', async () => {
    const row = page.getByRole('row').filter({ hasText: remote.url });
    await row.getByRole('button', { name: 'Connect secure now' }).click();
    await row.getByText('needs sign-in', { exact: true }).waitFor();
    await screenshot(page, 'mcp-needs-sign-in');
    const [popup] = await Promise.all([page.waitForEvent('popup'), row.getByRole('link', { name: 'Sign in' }).click()]);
    await popup.getByRole('heading', { name: 'Signed in' }).waitFor();
    assert.match(popup.url(), new RegExp(`^${proc.url}/api/mcp/oauth/callback\\?`));
    await popup.close();
    await row.getByText('running').waitFor();
    await row.getByText('tools: 1').waitFor();
    await screenshot(page, 'mcp-signed-in');
    await row.getByRole('button', { name: 'Sign out' }).click();
    await row.getByRole('button', { name: 'Sign out' }).waitFor({ state: 'detached' });
    await row.getByText('not started').waitFor();
  });

  it('the import preview shows what a snippet grants and imports it asking, unless kept', async () => {
    await page.getByRole('button', { name: 'Import JSON' }).click();
    const imp = page.getByRole('dialog', { name: 'Import tool servers' });
    await imp.getByLabel('JSON snippet').fill(
      JSON.stringify({
        mcpServers: {
          shell: { command: 'npx', args: ['-y', 'some-shell-server'], approval: 'auto' },
          docs: { url: 'https://docs.example.com/mcp', always_allow: ['search'] },
          plain: { command: 'uvx', args: ['mcp-server-time'] },
        },
      }),
    );
    const preview = imp.getByRole('table', { name: 'Servers to import' });
    const shell = preview.getByRole('row').filter({ hasText: 'some-shell-server' });
    await shell.getByText('runs every tool without asking').waitFor();
    await shell.getByText('Will be imported asking before every tool.').waitFor();
    const docs = preview.getByRole('row').filter({ hasText: 'docs.example.com' });
    await docs.getByText('always allows: search').waitFor();
    await docs.getByLabel('Keep this for docs').check();
    await screenshot(page, 'mcp-import-grants');
    await assertAccessible(page, 'the import preview');
    await imp.getByRole('button', { name: 'Import 3' }).click();
    await imp.getByText('Imported 3 server(s).').waitFor();
    const all = servers();
    assert.equal(all.shell.approval, undefined, 'auto dropped: the user did not keep it');
    assert.deepEqual(all.docs.always_allow, ['search'], 'kept on request');
    assert.equal(all.plain.command, 'uvx');
    await imp.getByRole('button', { name: 'Close' }).click();
  });

  it('the catalog adds a well-known server in one click, says what each can do, and asks for the folder', async () => {
    await page.getByRole('button', { name: 'Catalog' }).click();
    const catalog = page.getByRole('dialog', { name: 'Well-known tool servers' });
    for (const title of ['Files', 'Fetch web pages', 'Git', 'Memory', 'Time', 'Sequential thinking', 'Everything (test server)']) {
      await catalog.getByRole('heading', { name: title, exact: true }).waitFor();
    }
    const files = catalog.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Files', exact: true }) });
    await files.getByText('inside the folder you choose, and nowhere else').waitFor();
    await screenshot(page, 'mcp-catalog');
    await assertAccessible(page, 'the catalog');
    await catalog.getByRole('button', { name: 'Add Time' }).click();
    await catalog.getByRole('button', { name: 'Add server' }).click();
    await catalog.getByRole('listitem').filter({ hasText: 'converts between time zones' }).getByText('added').waitFor();
    await catalog.getByRole('button', { name: 'Add Files' }).click();
    await files.getByRole('button', { name: 'Add server' }).click();
    await files.getByText('Choose the folder the server may use.').waitFor();
    await files.getByLabel('Folder').fill('/home/me/notes');
    await files.getByRole('button', { name: 'Add server' }).click();
    await files.getByText('added').waitFor();
    await catalog.getByRole('button', { name: 'Close' }).click();
    const all = servers();
    assert.deepEqual(all.time, { command: 'uvx', args: ['mcp-server-time'] });
    assert.deepEqual(all.filesystem, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'] });
    await page.getByRole('row').filter({ hasText: 'server-filesystem /home/me/notes' }).waitFor();
  });

  it('in Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '工具服务器', level: 1 }).waitFor();
    await page.getByRole('button', { name: '编辑 notes' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('始终允许的工具').waitFor();
    await dialog.getByRole('button', { name: '撤销 list_notes 的“始终允许”' }).waitFor();
    await screenshot(page, 'mcp-editor-approvals-zh');
    await dialog.getByRole('button', { name: '取消' }).click();
    await page.getByRole('button', { name: '目录' }).click();
    await page.getByRole('dialog', { name: '常用工具服务器' }).getByText('不会访问其他位置').waitFor();
    await screenshot(page, 'mcp-catalog-zh');
    await page.getByRole('dialog', { name: '常用工具服务器' }).getByRole('button', { name: '关闭' }).click();
    await page.getByLabel('语言').selectOption('en');
    assert.deepEqual(errors, []);
  });
});
