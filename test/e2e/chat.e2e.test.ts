import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import { BackendProcess } from '../helpers/backend-process.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';
import { apiAs, axeViolations, CHAT_FIXTURES, pageCredential, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

describe('chat page in Chromium against the real backend and aimock', { timeout: 420_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let call: ReturnType<typeof apiAs>;
  let workspaceId = '';

  const message = () => page.getByRole('textbox', { name: 'Message' });
  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const replies = () => conversation().getByRole('article', { name: 'Assistant' });
  const lastReply = () => replies().last();
  /** The reply after the newest user message (rows far above the view are not in the DOM: no counting). */
  const replyToLast = () =>
    conversation().locator(`xpath=(//article[@aria-label='You'])[last()]/following::article[@aria-label='Assistant'][1]`);
  /** Sends and waits for the new reply's article; returns it. */
  const send = async (text: string) => {
    await message().fill(text);
    await message().press('Enter');
    await conversation().getByRole('article', { name: 'You' }).last().filter({ hasText: text }).waitFor({ timeout: LONG });
    const reply = replyToLast();
    await reply.waitFor({ timeout: LONG });
    return reply;
  };
  /** The turn has ended and its stored reply has replaced the live view (focus set before that swap would be lost). */
  const idle = async () => {
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: LONG });
    await page.locator('.msg-live').waitFor({ state: 'detached', timeout: LONG });
  };

  before(async () => {
    mock = await Aimock.start(CHAT_FIXTURES);
    proc = await startUiBackend();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors = watchErrors(page);
    // Keeps the page's WebSockets reachable, so a test can drop them as a lost network would.
    await page.addInitScript({
      content: `(() => { const W = window.WebSocket; window.__sockets = []; window.WebSocket = class extends W { constructor(...a) { super(...a); window.__sockets.push(this); } }; })();`,
    });
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
  });

  it('pairs, opens on Chat (first in the navigation) and creates a workspace right there', async () => {
    await pairInPage(page, proc);
    const nav = page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link');
    assert.equal(await nav.first().innerText(), 'Chat');
    call = apiAs(proc.url, await pageCredential(page));

    await page.getByText('No workspace yet').waitFor();
    await page.getByLabel('Workspace name').fill('Research');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByLabel('Workspace', { exact: true }).waitFor();
    const list = await call('GET', '/api/workspaces');
    const workspaces = (list.workspaces ?? list) as { id: string; name: string }[];
    assert.deepEqual(
      workspaces.map((w) => w.name),
      ['Research'],
    );
    workspaceId = workspaces[0].id;
  });

  it('leads to the providers page without a provider, and names the missing model setting', async () => {
    await page.getByText('No model provider yet').waitFor();
    await page.getByRole('link', { name: 'Add a provider' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();

    await call(
      'POST',
      '/api/config/providers',
      mockProvider(mock.url, { context_window: 32_000, supports_tools: true, supports_thinking: true }),
    );
    await call('PUT', '/api/profiles/writer', { language: 'system' });
    await call('PUT', `/api/workspaces/${workspaceId}`, { profile_id: 'writer' });
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByText('The profile “writer” has no model').waitFor();
    await screenshot(page, 'chat-01-no-model');

    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await page.getByRole('button', { name: 'New chat' }).first().waitFor();
    await page.getByText('The profile “writer” has no model').waitFor({ state: 'detached' });
  });

  it('creates a chat, sends with Enter and streams a Markdown reply with a copyable code block', async () => {
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await message().waitFor();
    const reply = await send('hello zebrafish');
    await conversation().getByRole('article', { name: 'You' }).getByText('hello zebrafish').waitFor();
    await reply.locator('strong', { hasText: 'Hello' }).waitFor({ timeout: LONG });
    await reply.locator('code', { hasText: 'console.log("hi");' }).waitFor();
    await reply.getByRole('button', { name: 'Copy code' }).waitFor();
    const docs = reply.getByRole('link', { name: 'the docs' });
    assert.equal(await docs.getAttribute('href'), 'https://example.com/docs');
    assert.equal(await docs.getAttribute('target'), '_blank');
    assert.equal(await docs.getAttribute('rel'), 'noopener noreferrer');
    // A javascript: link is text, never a link.
    assert.equal(await reply.getByRole('link', { name: 'this' }).count(), 0);
    await reply.getByText(/Tokens: [\d,]+ in · [\d,]+ out · [\d,]+ cached · [\d,]+ reasoning/).waitFor({ timeout: LONG });
    const gauge = page.getByRole('meter', { name: 'Context' });
    await gauge.waitFor();
    assert.equal(await gauge.getAttribute('aria-valuemax'), '32000');
    assert.match((await gauge.getAttribute('aria-valuetext')) ?? '', /compression at 80%/);
    // The first message names the chat.
    await page.getByRole('list', { name: 'Chats' }).getByText('hello zebrafish').waitFor({ timeout: LONG });
    await screenshot(page, 'chat-02-reply-1280');
  });

  it('Shift+Enter adds a line; Stop and Esc end slow replies and keep what streamed', async () => {
    await message().fill('first line');
    await message().press('Shift+Enter');
    await message().pressSequentially('slow story');
    assert.equal(await message().inputValue(), 'first line\nslow story');
    await message().press('Enter');
    const stop = page.getByRole('button', { name: 'Stop' });
    await stop.waitFor({ timeout: LONG });
    await replyToLast().getByText('Once upon a time').waitFor({ timeout: LONG });
    await stop.click();
    await page.getByText('Stopped. What streamed so far is kept.').waitFor({ timeout: LONG });
    await idle();
    const kept = await lastReply().innerText();
    assert.match(kept, /Once upon a time/);
    assert.doesNotMatch(kept, /THE END/);

    const again = await send('slow story again');
    await again.getByText('Once upon a time').waitFor({ timeout: LONG });
    await page.keyboard.press('Escape');
    await page.getByText('Stopped. What streamed so far is kept.').waitFor({ timeout: LONG });
    await idle();
  });

  it('a reload in the middle of a reply resumes the stream and it finishes once', async () => {
    const live = await send('reload story');
    await live.getByText('Sentence number 2 ').waitFor({ timeout: LONG });
    await page.reload();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: LONG });
    await lastReply().getByText('THE END.').waitFor({ timeout: LONG });
    await idle();
    const text = await lastReply().innerText();
    assert.equal(text.split('Once upon a time').length - 1, 1, 'the resumed reply holds the story once');
    assert.equal(text.split('Sentence number 7 ').length - 1, 1);
  });

  it('a connection lost in the middle of a reply reconnects and resumes where it was', async () => {
    const live = await send('reload story once more');
    await live.getByText('Sentence number 2 ').waitFor({ timeout: LONG });
    // The socket drops as a lost network would drop it; the frames of the next ~0.5 s (the first
    // reconnect delay) never reach this socket, so only a resume can fill them in.
    const open = await page.evaluate(
      'window.__sockets.filter((s) => s.readyState === 1).map((s) => (s.close(), s.url.replace(/service_credential=[^&]+/, "")))',
    );
    assert.equal((open as string[]).length, 1, `one live socket: ${JSON.stringify(open)}`);
    const deadline = Date.now() + LONG;
    while (!(await page.evaluate('window.__sockets.length >= 2 && window.__sockets[window.__sockets.length - 1].readyState === 1'))) {
      assert.ok(Date.now() < deadline, 'the page reconnected');
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.getByRole('status', { name: 'Live updates' }).getByText('Live', { exact: true }).waitFor({ timeout: LONG });
    await lastReply().getByText('THE END.').waitFor({ timeout: LONG });
    await idle();
    const text = await lastReply().innerText();
    assert.equal(text.split('Once upon a time').length - 1, 1);
    for (let n = 1; n <= 40; n++) assert.equal(text.split(`Sentence number ${n} `).length - 1, 1, `sentence ${n} once`);
  });

  it('shows thinking collapsed under the reply with its length', async () => {
    const reply = await send('think first');
    await reply.getByText('The answer is 42.').waitFor({ timeout: LONG });
    await idle();
    const summary = reply.locator('details.thinking > summary');
    const reasoning = 'The user wants a number. Forty-two is the classic answer.';
    await summary.filter({ hasText: `Thinking · ${reasoning.length} characters` }).waitFor();
    assert.equal(await reply.locator('details.thinking').getAttribute('open'), null);
    await summary.click();
    await reply.getByText(reasoning).waitFor();
    await screenshot(page, 'chat-03-thinking');
  });

  it('says why a turn failed and Retry sends it again', async () => {
    await message().fill('fail once');
    await message().press('Enter');
    const alert = conversation().getByRole('alert').filter({ hasText: 'The provider refused the API key' });
    await alert.waitFor({ timeout: LONG });
    await screenshot(page, 'chat-04-failure');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await lastReply().getByText('Recovered after the retry.').waitFor({ timeout: LONG });
    await alert.waitFor({ state: 'detached' });
    // The regenerated turn has ended (the next test types at once).
    await idle();
  });

  it('shows raw HTML in a reply as text and runs none of it', async () => {
    const reply = await send('show html');
    await reply.getByText('<img src=x onerror="window.__xss=1">', { exact: false }).waitFor({ timeout: LONG });
    await reply.getByText('<script>window.__xss=2</script>', { exact: false }).waitFor();
    await reply.locator('strong', { hasText: 'bold' }).waitFor();
    assert.equal(await conversation().locator('img, script').count(), 0);
    assert.equal(await page.evaluate('window.__xss'), undefined);
  });

  it('searches across chats and jumps to the message in another chat', async () => {
    await page.getByRole('button', { name: 'New chat' }).first().click();
    await conversation().getByText('Send a message to start.').waitFor();
    await send('second chat');
    await lastReply().getByText('This is the second chat.').waitFor({ timeout: LONG });
    await idle();
    await page.getByRole('searchbox', { name: 'Search all chats' }).fill('zebrafish');
    const hit = page.getByRole('list', { name: 'Search results' }).getByRole('button').first();
    await hit.waitFor({ timeout: LONG });
    await hit.click();
    const target = conversation().getByRole('article', { name: 'You' }).filter({ hasText: 'hello zebrafish' });
    await target.waitFor({ timeout: LONG });
    await page.locator('.msg-highlight').first().waitFor();
    assert.ok(await target.isVisible());
  });

  it('renames and deletes a chat after confirmation', async () => {
    const chats = page.getByRole('list', { name: 'Chats' });
    await page.getByRole('button', { name: 'Rename second chat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename chat' });
    await dialog.getByLabel('Title').fill('Renamed chat');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await chats.getByText('Renamed chat').waitFor();
    await page.getByRole('button', { name: 'Delete Renamed chat' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete chat' });
    await confirm.getByText('Delete “Renamed chat”?').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await chats.getByText('Renamed chat').waitFor({ state: 'detached' });
    const sessions = (await call('GET', `/api/workspaces/${workspaceId}/sessions`)).sessions as { title: string }[];
    assert.deepEqual(
      sessions.map((s) => s.title),
      ['hello zebrafish'],
    );
  });

  it('has no serious or critical axe violations, and looks right at 900×700', async () => {
    await lastReply().waitFor();
    try {
      await page.setViewportSize({ width: 900, height: 700 });
      await screenshot(page, 'chat-05-reply-900');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    const violations = await axeViolations(page);
    assert.deepEqual(violations, []);
  });

  it('works in Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    const box = page.getByRole('textbox', { name: '消息' });
    await box.waitFor();
    await page.getByRole('button', { name: '新对话' }).first().click();
    await conversation2(page).getByText('发送一条消息开始对话。').waitFor();
    await box.fill('你好');
    await box.press('Enter');
    await conversation2(page).getByText('你好！我是你的助手').waitFor({ timeout: LONG });
    await page.getByRole('button', { name: '发送' }).waitFor({ timeout: LONG });
    try {
      await page
        .getByText(/令牌：输入/)
        .first()
        .waitFor({ timeout: LONG });
      await screenshot(page, 'chat-06-chinese');
    } finally {
      await page.getByLabel('语言').selectOption('en');
    }
  });

  it('is usable from the keyboard alone', async () => {
    /** Presses Tab (or Shift+Tab) until the focused element's label or text matches. */
    const tabTo = async (name: string, key = 'Tab') => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press(key);
        const label = await page.evaluate(
          `(() => { const el = document.activeElement; return el ? (el.getAttribute('aria-label') || el.textContent || '').trim() : ''; })()`,
        );
        if (label === name) return;
      }
      throw new Error(`${name} not reachable with ${key}`);
    };
    await page.getByRole('searchbox', { name: 'Search all chats' }).focus();
    await tabTo('New chat', 'Shift+Tab');
    await page.keyboard.press('Enter');
    await conversation().getByText('Send a message to start.').waitFor();
    assert.equal(await page.evaluate(`document.activeElement?.tagName`), 'TEXTAREA', 'a new chat puts the cursor in the message box');
    await page.keyboard.type('hello zebrafish');
    await page.keyboard.press('Enter');
    await lastReply().getByText('Hello').first().waitFor({ timeout: LONG });
    await idle();
    await tabTo('Copy code', 'Shift+Tab');
    await page.keyboard.press('Enter');
    await lastReply().getByRole('button', { name: 'Copied' }).waitFor();
    await tabTo('Rename hello zebrafish', 'Shift+Tab');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename chat' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(errors, []);
  });
});

function conversation2(page: Page): Locator {
  return page.getByRole('region', { name: '对话内容' });
}
