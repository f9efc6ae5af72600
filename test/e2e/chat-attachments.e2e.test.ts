import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import type { BackendProcess } from '../helpers/backend-process.js';
import { makePng } from '../helpers/test-files.js';
import { everythingStdio } from '../mcp/mcp-test-kit.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairedContext, startPairedUi } from './paired-page.js';
import { apiAs, axeViolations, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

/**
 * Files handed to the page as a paste or a drop: a DataTransfer built in the page holding a File of
 * the given bytes (or, for `canvas`, a PNG drawn there at that size).
 */
function transferScript(kind: 'paste' | 'drop', file: { name: string; type: string; base64?: string; canvas?: [number, number] }): string {
  return `(async () => {
    const f = ${JSON.stringify(file)};
    let blob;
    if (f.canvas) {
      const c = document.createElement('canvas');
      c.width = f.canvas[0]; c.height = f.canvas[1];
      const g = c.getContext('2d');
      g.fillStyle = '#2a6'; g.fillRect(0, 0, c.width, c.height);
      g.fillStyle = '#fff'; g.fillRect(c.width / 4, c.height / 4, c.width / 2, c.height / 2);
      blob = await new Promise((r) => c.toBlob(r, 'image/png'));
    } else {
      blob = new Blob([Uint8Array.from(atob(f.base64), (ch) => ch.charCodeAt(0))], { type: f.type });
    }
    const dt = new DataTransfer();
    dt.items.add(new File([blob], f.name, { type: f.type }));
    if (${JSON.stringify(kind)} === 'paste') {
      const box = document.querySelector('textarea');
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    } else {
      const target = document.querySelector('.conversation');
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  })()`;
}

describe('chat attachments in Chromium: button, paste, drop, thumbnails, downscale, history', { timeout: 300_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let call: ReturnType<typeof apiAs>;
  let workspaceId = '';
  let credential = '';

  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const tray = () => page.getByRole('list', { name: 'Files for the next message' });
  const message = () => page.getByRole('textbox', { name: 'Message' });
  const lastUser = () => conversation().getByRole('article', { name: 'You' }).last();
  const sendText = async (text: string) => {
    await message().fill(text);
    // Send is enabled once the text is there and every upload has finished.
    await page.getByRole('button', { name: 'Send' }).and(page.locator(':not([disabled])')).waitFor({ timeout: LONG });
    await message().press('Enter');
    await lastUser().filter({ hasText: text }).waitFor({ timeout: LONG });
  };
  const sessionMessages = async () => {
    const sessions = (await call('GET', `/api/workspaces/${workspaceId}/sessions`)).sessions;
    return (await call('GET', `/api/workspaces/${workspaceId}/sessions/${sessions[0].id}`)).messages as any[];
  };

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'in one word' }, response: { content: 'Blue.' } },
      { match: { userMessage: 'describe the chart' }, response: { content: 'A blue chart.' } },
      { match: { userMessage: 'summarise the notes' }, response: { content: 'Notes summarised.' } },
      { match: { userMessage: 'big picture' }, response: { content: 'A big green picture.' } },
      { match: { userMessage: 'returned this image' }, response: { content: 'The tool drew a tiny image.' } },
      {
        match: { userMessage: 'show tiny image', hasToolResult: false },
        response: { toolCalls: [{ name: 'ev__get-tiny-image', arguments: '{}', id: 'call_tiny' }] },
      },
    ]);
    const paired = await startPairedUi();
    proc = paired.proc;
    credential = paired.credential;
    call = apiAs(proc.url, credential);
    const provider = mockProvider(mock.url, { context_window: 64_000, supports_vision: true, supports_tools: true });
    provider.models.push({ id: 'blind' });
    await call('POST', '/api/config/providers', provider);
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    workspaceId = (await call('POST', '/api/workspaces', { name: 'Files' })).id;
    await call('PUT', '/api/mcp/global', { mcpServers: { ev: everythingStdio({ approval: 'auto' }) } });
    browser = await launchChromium();
    const context = await pairedContext(browser, proc, paired.credential);
    page = await context.newPage();
    // The machine may be shared and busy: Playwright's 30 s default is too tight for a cold page.
    page.setDefaultTimeout(LONG);
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

  it('attach by button: a thumbnail with progress, then the image in the sent message; it opens full size', async () => {
    await page.getByRole('button', { name: 'Attach files' }).waitFor();
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: makePng(300, 200, (x) => [20, 60, 200 - (x % 50)]) });
    const item = tray().getByRole('listitem').filter({ hasText: 'chart.png' });
    await item.locator('img').waitFor();
    await item.and(page.locator('[data-status=ready]')).waitFor({ timeout: LONG });
    assert.equal(await item.getByRole('button', { name: 'Remove chart.png' }).count(), 1);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'chat-attach-01-tray');

    await sendText('describe the chart');
    await conversation().getByText('A blue chart.').waitFor({ timeout: LONG });
    await tray().waitFor({ state: 'detached' });
    const thumb = lastUser().getByRole('button', { name: 'Open chart.png at full size' });
    const img = thumb.locator('img');
    await img.waitFor();
    await page.waitForFunction(`document.querySelector('.att-thumb img')?.naturalWidth === 300`, undefined, { timeout: LONG });
    assert.match((await img.getAttribute('src')) ?? '', /^blob:/);
    await screenshot(page, 'chat-attach-02-sent');
    await thumb.click();
    const dialog = page.getByRole('dialog', { name: 'chart.png' });
    await dialog.locator('img').waitFor();
    assert.equal(await dialog.getByRole('link', { name: 'Download' }).getAttribute('download'), 'chart.png');
    await screenshot(page, 'chat-attach-03-full-size');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const user = (await sessionMessages()).find((m) => m.role === 'user');
    assert.equal(user.blocks[0].type, 'image');
    assert.equal(user.blocks[0].name, 'chart.png');
  });

  it('paste adds a file; its chip can be removed before sending', async () => {
    await page.evaluate(transferScript('paste', { name: 'pasted.png', type: 'image/png', base64: makePng(20, 20).toString('base64') }));
    const item = tray().getByRole('listitem').filter({ hasText: 'pasted.png' });
    await item.and(page.locator('[data-status=ready]')).waitFor({ timeout: LONG });
    await item.getByRole('button', { name: 'Remove pasted.png' }).click();
    await tray().waitFor({ state: 'detached' });
  });

  it('drop onto the conversation attaches a text file, sent as a file chip', async () => {
    const notes = Buffer.from('# Notes\n\n- buy milk\n- 写代码\n');
    await page.evaluate(transferScript('drop', { name: 'notes.md', type: 'text/markdown', base64: notes.toString('base64') }));
    await tray().getByRole('listitem').filter({ hasText: 'notes.md' }).and(page.locator('[data-status=ready]')).waitFor({ timeout: LONG });
    await sendText('summarise the notes');
    await conversation().getByText('Notes summarised.').waitFor({ timeout: LONG });
    await lastUser()
      .getByRole('button', { name: /notes\.md/ })
      .waitFor();
  });

  it('a 4000×3000 image is downscaled to 2048×1536 before upload', async () => {
    await page.evaluate(transferScript('drop', { name: 'huge.png', type: 'image/png', canvas: [4000, 3000] }));
    await tray().getByRole('listitem').filter({ hasText: 'huge.png' }).and(page.locator('[data-status=ready]')).waitFor({ timeout: LONG });
    await sendText('big picture');
    await conversation().getByText('A big green picture.').waitFor({ timeout: LONG });
    const user = (await sessionMessages()).filter((m) => m.role === 'user').at(-1);
    const sessions = (await call('GET', `/api/workspaces/${workspaceId}/sessions`)).sessions;
    const res = await fetch(
      `${proc.url}/api/workspaces/${workspaceId}/sessions/${sessions[0].id}/attachments/${user.blocks[0].attachment_id}`,
      {
        headers: { authorization: `Bearer ${credential}` },
      },
    );
    assert.equal(res.status, 200);
    const png = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [2048, 1536]);
  });

  it('after a reload the image is shown in the history', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Open chart.png at full size' }).waitFor({ timeout: LONG });
    await page.waitForFunction(`[...document.querySelectorAll('.att-thumb img')].some((i) => i.naturalWidth === 300)`, undefined, {
      timeout: LONG,
    });
    await screenshot(page, 'chat-attach-04-after-reload');
  });

  it('editing a question that carried an image keeps the image on the new branch', async () => {
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: LONG });
    const question = conversation()
      .locator('article.msg-user')
      .filter({ has: page.locator('.bubble', { hasText: /^describe the chart$/ }) });
    await question.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('describe the chart in one word');
    await editor.press('Enter');
    await editor.waitFor({ state: 'detached', timeout: LONG });
    await conversation().getByText('Blue.').waitFor({ timeout: LONG });
    const edited = conversation()
      .locator('article.msg-user')
      .filter({ has: page.locator('.bubble', { hasText: 'describe the chart in one word' }) });
    await edited.getByRole('button', { name: 'Open chart.png at full size' }).waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: LONG });
    const user = (await sessionMessages()).find(
      (m) => m.role === 'user' && m.blocks.some((b: any) => b.text === 'describe the chart in one word'),
    );
    assert.ok(user, 'the edited question is on the shown branch');
    assert.deepEqual(
      user.blocks.map((b: any) => [b.type, b.name ?? b.text]),
      [
        ['image', 'chart.png'],
        ['text', 'describe the chart in one word'],
      ],
    );
    assert.deepEqual(user.siblings, { index: 2, count: 2 });
  });

  it('an image a tool returned shows in its tool card', async () => {
    await sendText('show tiny image');
    await conversation().getByText('The tool drew a tiny image.').waitFor({ timeout: LONG });
    const card = conversation().getByRole('region', { name: 'Tool call ev · get-tiny-image' }).last();
    await card.getByRole('button', { name: 'Open get-tiny-image-1.png at full size' }).locator('img').waitFor({ timeout: LONG });
    await screenshot(page, 'chat-attach-06-tool-image');
  });

  it('refusals are named: an SVG is not accepted, and a model without vision is refused with its name', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await page.locator('input[type=file]').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: svg });
    const refused = tray().getByRole('listitem').filter({ hasText: 'logo.svg' });
    await refused.getByRole('alert').filter({ hasText: 'logo.svg is not an image, PDF or text file' }).waitFor({ timeout: LONG });
    await refused.getByRole('button', { name: 'Remove logo.svg' }).click();

    await call('PUT', '/api/profiles/blind', { model: 'mock:blind' });
    await call('PUT', `/api/workspaces/${workspaceId}`, { profile_id: 'blind' });
    await page.reload();
    await page.locator('input[type=file]').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: makePng(10, 10) });
    await tray().getByRole('listitem').filter({ hasText: 'photo.png' }).and(page.locator('[data-status=ready]')).waitFor({ timeout: LONG });
    await message().fill('what is this');
    await message().press('Enter');
    await page.getByRole('alert').filter({ hasText: 'cannot read images or PDFs' }).waitFor({ timeout: LONG });
    await screenshot(page, 'chat-attach-05-no-vision');
    assert.deepEqual(errors, []);
  });
});
