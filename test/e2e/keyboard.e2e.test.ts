import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { openPaired } from './paired-page.js';

/** The contract's shortcuts, the command palette (chats of every workspace, pages, actions) and the sheet. */
describe('keyboard: shortcuts, command palette, shortcut sheet', { timeout: 180_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let credential: string;
  const ids: Record<string, string> = {};

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await api(proc.url, method, p, { credential, body });
    assert.ok(res.status < 300, `${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const heading = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();

  before(async () => {
    ({ proc, browser, page, errors, credential } = await openPaired({ backend: { args: ['-swap-port', 'off'] } }));
    ids.alpha = (await call('POST', '/api/workspaces', { name: 'Alpha team' })).id;
    ids.beta = (await call('POST', '/api/workspaces', { name: 'Beta lab' })).id;
    await call('POST', `/api/workspaces/${ids.alpha}/sessions`, { title: 'Quarterly budget' });
    ids.tokyo = (await call('POST', `/api/workspaces/${ids.beta}/sessions`, { title: 'Tokyo trip plan' })).id;
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
  });

  it('Ctrl+K finds a chat of another workspace by title and opens it', async () => {
    await page.goto(`${proc.url}/#/providers`);
    await heading('Providers');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.waitFor();
    await assertAccessible(page, 'command palette');
    await page.keyboard.type('tokyo');
    const option = palette.getByRole('option', { name: /Tokyo trip plan/ });
    await option.waitFor();
    assert.match(await option.innerText(), /Chat in Beta lab/);
    assert.equal(await palette.getByRole('option').count(), 1);
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'hidden' });
    await heading('Chat');
    assert.equal(await page.getByLabel('Workspace').inputValue(), ids.beta);
    await page
      .getByRole('button', { name: /Tokyo trip plan/ })
      .and(page.locator('[aria-current="true"]'))
      .waitFor();
  });

  it('the palette goes to pages and runs actions; arrows move the choice', async () => {
    await page.keyboard.press('Control+k');
    await page.keyboard.type('skills');
    await page.keyboard.press('Enter');
    await heading('Skills');
    await page.keyboard.press('Control+k');
    await page.keyboard.type('theme');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    assert.equal(
      await palette
        .getByRole('option', { selected: true })
        .innerText()
        .then((s) => s.split('\n')[0]),
      'Theme: System',
    );
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.match(await palette.getByRole('option', { selected: true }).innerText(), /Theme: Dark/);
    await page.keyboard.press('Enter');
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    await page.keyboard.press('Control+k');
    await page.keyboard.type('no such thing at all');
    await palette.getByText('Nothing matches.').waitFor();
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'hidden' });
    await page.getByLabel('Theme').selectOption('system');
  });

  it('Ctrl+/ shows the shortcut sheet; Ctrl+, opens settings; Ctrl+Shift+F focuses search; Ctrl+N starts a chat', async () => {
    await page.keyboard.press('Control+/');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    for (const [keys, what] of [
      ['Ctrl+N', 'New chat'],
      ['Ctrl+K', 'Command palette'],
      ['Ctrl+Shift+F', 'Search chats'],
      ['Ctrl+,', 'Settings (providers)'],
      ['Ctrl+/', 'This list of shortcuts'],
      ['Esc', 'Stop the answer being written'],
    ]) {
      assert.match(await sheet.getByRole('row').filter({ hasText: what }).innerText(), new RegExp(keys.replace(/[+/]/g, '\\$&')));
    }
    await assertAccessible(page, 'shortcut sheet');
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });

    await page.keyboard.press('Control+,');
    await heading('Providers');
    await page.keyboard.press('Control+Shift+F');
    await heading('Chat');
    await page.getByRole('searchbox').and(page.locator(':focus')).waitFor();

    const before = (await call('GET', `/api/workspaces/${ids.beta}/sessions`)).sessions.length;
    await page.locator('body').click({ position: { x: 5, y: 790 } });
    await page.keyboard.press('Control+n');
    await page.locator('.session-pick[aria-current="true"]', { hasText: 'New chat' }).waitFor();
    assert.equal((await call('GET', `/api/workspaces/${ids.beta}/sessions`)).sessions.length, before + 1);
  });

  it('both are reachable from buttons in the sidebar, in Chinese too', async () => {
    await page.getByRole('button', { name: /^Keyboard shortcuts/ }).click();
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('button', { name: /^命令面板/ }).click();
    const palette = page.getByRole('dialog', { name: '命令面板' });
    await palette.getByPlaceholder('输入对话标题、页面或操作').waitFor();
    await page.keyboard.type('预算');
    await palette.getByText('没有匹配项。').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+/');
    await page.getByRole('dialog', { name: '键盘快捷键' }).getByRole('row').filter({ hasText: '新建对话' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByLabel('语言').selectOption('auto');
    assert.deepEqual(errors, []);
  });
});
