import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { CONVERSATIONS } from '../chat/fixtures/chatgpt-export.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';
import { apiAs, axeViolations, pageCredential } from './chat-page-kit.js';

const LONG = 60_000;

describe('branches, models, export and import in Chromium', { timeout: 420_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let call: ReturnType<typeof apiAs>;
  let workspaceId = '';

  const message = () => page.getByRole('textbox', { name: 'Message' });
  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const lastReply = () => conversation().getByRole('article', { name: 'Assistant' }).last();
  const lastQuestion = () => conversation().getByRole('article', { name: 'You' }).last();
  const idle = () => page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: LONG });
  const send = async (text: string, answer: string) => {
    await message().fill(text);
    await message().press('Enter');
    await lastReply().getByText(answer).waitFor({ timeout: LONG });
    await idle();
  };
  const currentSession = async () => {
    const list = await call('GET', `/api/workspaces/${workspaceId}/sessions`);
    const title = await page.locator('.conv-title').innerText();
    return list.sessions.find((s: any) => s.title === title);
  };

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'first question' }, response: { content: 'First answer.' } },
      { match: { userMessage: 'regen me', sequenceIndex: 0 }, response: { content: 'Original reply.' } },
      { match: { userMessage: 'regen me', sequenceIndex: 1 }, response: { content: 'Regenerated reply.' } },
      { match: { userMessage: 'edited question' }, response: { content: 'Edited answer.' } },
      { match: { userMessage: '继续' }, response: { content: '好的，继续。' } },
      { match: { userMessage: '' }, response: { content: 'Something else.' } },
    ]);
    proc = await startUiBackend();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US', acceptDownloads: true });
    errors = watchErrors(page);
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
  });

  it('sets up: pairs, a provider with two models, a workspace', async () => {
    await pairInPage(page, proc);
    call = apiAs(proc.url, await pageCredential(page));
    await call('POST', '/api/config/providers', {
      id: 'mock',
      name: 'Mock',
      type: 'compat',
      base_url: `${mock.url}/v1`,
      api_key: 'sk-test-key',
      models: [
        { id: 'm1', name: 'Mock One', context_window: 32_000, supports_tools: true },
        { id: 'm2', name: 'Mock Two', context_window: 200_000, supports_thinking: true, supports_tools: true },
      ],
    });
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    workspaceId = (await call('POST', '/api/workspaces', { name: 'Branches' })).id;
    await page.reload();
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await message().waitFor();
  });

  it('regenerates a reply and switches between the two with ‹ 1/2 ›', async () => {
    await send('first question', 'First answer.');
    await send('regen me', 'Original reply.');
    await lastReply().getByRole('button', { name: 'Regenerate', exact: true }).click();
    await lastReply().getByText('Regenerated reply.').waitFor({ timeout: LONG });
    await idle();
    const switcher = lastReply().getByRole('group', { name: 'Alternative 2 of 2' });
    await switcher.waitFor();
    assert.equal(
      await conversation().getByRole('article', { name: 'You' }).filter({ hasText: 'regen me' }).count(),
      1,
      'the question shows once',
    );
    await screenshot(page, 'branches-01-regenerated');
    await switcher.getByRole('button', { name: 'Previous alternative' }).click();
    await lastReply().getByText('Original reply.').waitFor();
    await lastReply().getByRole('group', { name: 'Alternative 1 of 2' }).waitFor();
    const session = await call('GET', `/api/workspaces/${workspaceId}/sessions/${(await currentSession()).id}`);
    assert.equal(session.message_count, 5, 'two questions, three replies: nothing stored twice');
  });

  it('edits the last question from an empty composer with Up: Esc cancels, Enter sends a new branch', async () => {
    await message().focus();
    await message().press('ArrowUp');
    const editor = page.getByRole('textbox', { name: 'Edit message' });
    await editor.waitFor();
    assert.equal(await editor.inputValue(), 'regen me');
    await editor.press('Escape');
    await editor.waitFor({ state: 'detached' });
    await lastQuestion().getByRole('button', { name: 'Edit' }).click();
    await editor.fill('edited question');
    await screenshot(page, 'branches-02-editing');
    await editor.press('Enter');
    await lastReply().getByText('Edited answer.').waitFor({ timeout: LONG });
    await idle();
    await lastQuestion().getByRole('group', { name: 'Alternative 2 of 2' }).waitFor();
    assert.equal(await conversation().getByText('regen me').count(), 0, 'the old branch is not shown');
    // The shown branch survives a reload.
    await page.reload();
    await lastReply().getByText('Edited answer.').waitFor({ timeout: LONG });
    await lastQuestion().getByRole('group', { name: 'Alternative 2 of 2' }).getByRole('button', { name: 'Previous alternative' }).click();
    // The other question's branch, continued to its newest reply.
    await lastReply().getByText('Regenerated reply.').waitFor();
    await lastQuestion().getByRole('group', { name: 'Alternative 1 of 2' }).waitFor();
  });

  it('picks the model and thinking for this chat in the header; the reply says which model answered', async () => {
    const picker = page.getByRole('combobox', { name: 'Model' });
    const groups = await picker.locator('optgroup').evaluateAll((els) => els.map((e) => e.getAttribute('label')));
    assert.deepEqual(groups, ['Mock']);
    const options = await picker.locator('option').allInnerTexts();
    assert.ok(
      options.some((o) => o.startsWith('Mock Two') && o.includes('200k') && o.includes('thinking')),
      options.join(' | '),
    );
    await picker.selectOption('mock:m2');
    const thinking = page.getByRole('checkbox', { name: 'Thinking' });
    await thinking.check();
    await page.waitForTimeout(300);
    const session = await currentSession();
    assert.equal(session.model_override, 'mock:m2');
    assert.deepEqual(session.thinking_override, { enabled: true });
    await send('another one', 'Something else.');
    await lastReply()
      .getByText(/mock:m2/)
      .waitFor();
    await page.locator('.session-model', { hasText: 'mock:m2' }).first().waitFor();
    await screenshot(page, 'branches-03-model-picker');
    await page.reload();
    // The picker shows the stored choice once the session has loaded.
    let shown = '';
    for (let i = 0; i < 100 && shown !== 'mock:m2'; i++) {
      await page.waitForTimeout(50);
      shown = await page.getByRole('combobox', { name: 'Model' }).inputValue();
    }
    assert.equal(shown, 'mock:m2', 'the choice survives a reload');
  });

  it('exports the chat as Markdown from the session menu, and forks from a reply', async () => {
    await page.getByRole('button', { name: 'Export' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Markdown' }).click()]);
    const file = await download.path();
    const md = readFileSync(file!, 'utf8');
    assert.match(md, /^# regen me|^# first question/);
    assert.match(md, /## You\n\nfirst question/);
    assert.ok(
      md.includes('Regenerated reply.') && !md.includes('Original reply.') && !md.includes('edited question'),
      'the shown branch only',
    );

    const before = (await call('GET', `/api/workspaces/${workspaceId}/sessions`)).sessions.length;
    await conversation().getByRole('article', { name: 'Assistant' }).first().getByRole('button', { name: 'Fork' }).click();
    await page.locator('.conv-title', { hasText: '(fork)' }).waitFor({ timeout: LONG });
    await conversation().getByText('First answer.').waitFor();
    assert.equal(await conversation().getByText('Original reply.').count(), 0);
    assert.equal((await call('GET', `/api/workspaces/${workspaceId}/sessions`)).sessions.length, before + 1);
  });

  it('previews and imports a ChatGPT export, with progress, counts and what is left out', async () => {
    const file = path.join(tempDir('chatgpt-'), 'conversations.json');
    writeFileSync(file, JSON.stringify(CONVERSATIONS));
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import chats' });
    await dialog.getByLabel('File').setInputFiles(file);
    await dialog.getByText('ChatGPT export: 2 conversations, 11 messages, 4 branches.').waitFor({ timeout: LONG });
    await dialog.getByRole('cell', { name: 'Trip to Kyoto' }).waitFor();
    await dialog.getByText(/Nothing here/).waitFor();
    await screenshot(page, 'branches-04-import-preview');
    assert.deepEqual(await axeViolations(page), []);
    await dialog.getByRole('button', { name: 'Import 2 conversations' }).click();
    await dialog.getByText(/Imported 2 conversations/).waitFor({ timeout: LONG });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.locator('.session-pick', { hasText: 'Trip to Kyoto' }).click();
    await conversation().getByText('Budget about 3,500 yen a day').waitFor({ timeout: LONG });
    await conversation().getByRole('article', { name: 'You' }).first().getByRole('group', { name: 'Alternative 1 of 2' }).waitFor();
    const broken = path.join(tempDir('chatgpt-'), 'broken.json');
    writeFileSync(broken, '[{"title": "x", "mapping": {"abc": {"parent": null, "children": [], "message": 3}}}]');
    await page.getByRole('button', { name: 'Import…' }).click();
    await dialog.getByLabel('File').setInputFiles(broken);
    await dialog.getByText(/\[0\]\.mapping\.abc\.message/).waitFor({ timeout: LONG });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('works in Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    try {
      await page.getByRole('button', { name: '新对话' }).first().click();
      // The new chat is open (typing earlier would go to the chat shown before it).
      await conversation2().getByText('发送一条消息开始对话。').waitFor();
      const box = page.getByRole('textbox', { name: '消息' });
      await box.fill('继续');
      await box.press('Enter');
      await conversation2().getByText('好的，继续。').waitFor({ timeout: LONG });
      await page.getByRole('button', { name: '发送' }).waitFor({ timeout: LONG });
      await conversation2().getByRole('button', { name: '重新生成', exact: true }).waitFor();
      await conversation2().getByRole('button', { name: '分叉' }).first().waitFor();
      await page.getByRole('combobox', { name: '模型' }).waitFor();
      await screenshot(page, 'branches-05-chinese');
      await page.getByRole('button', { name: '导入…' }).click();
      await page.getByRole('dialog', { name: '导入对话' }).waitFor();
      await screenshot(page, 'branches-06-import-chinese');
      await page.getByRole('dialog', { name: '导入对话' }).getByRole('button', { name: '取消' }).click();
    } finally {
      await page.getByLabel('语言').selectOption('en');
    }
    assert.deepEqual(errors, []);
  });

  const conversation2 = () => page.getByRole('region', { name: '对话内容' });
});
