import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { BackendProcess } from '../helpers/backend-process.js';
import { writeSession } from '../helpers/history-gen.js';
import { openPaired } from './paired-page.js';
import { apiAs, pageCredential } from './chat-page-kit.js';
import { assertAccessible } from './axe.js';

const SESSIONS = 250;

/** Polls (the page's CSP forbids waitForFunction's string evaluation). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const NEEDLE_IN = 30;

/** A workspace with 250 chats: the list grows as it scrolls; search pages through its hits. */
describe('chat history in Chromium: the list pages as it scrolls, search pages', { timeout: 240_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    ({ proc, browser, page, errors } = await openPaired());
    const call = apiAs(proc.url, await pageCredential(page));
    const ws = await call('POST', '/api/workspaces', { name: 'History' });
    const root = path.join(proc.dataDir, 'workspaces', ws.id, 'sessions');
    for (let i = 0; i < SESSIONS; i++) {
      await writeSession(path.join(root, `s-${i}`), `s-${i}`, {
        messages: 2,
        start: Date.UTC(2026, 0, 1) + i * 60_000,
        extra: (m) => (i < NEEDLE_IN && m === 0 ? 'zebrafish' : ''),
      });
    }
    await page.reload();
  });
  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
  });

  it('shows 100 chats, then more as the end of the list scrolls into view, until all 250', async () => {
    const items = page.getByRole('list', { name: 'Chats' }).getByRole('listitem');
    await page.getByRole('button', { name: /^Generated s-249 / }).waitFor();
    assert.equal(await items.count(), 100);
    for (const expected of [200, 250]) {
      await page.getByRole('button', { name: 'Load older chats' }).scrollIntoViewIfNeeded();
      await until(async () => (await items.count()) >= expected, `${expected} chats`);
    }
    assert.equal(await items.count(), 250);
    assert.equal(await page.getByRole('button', { name: 'Load older chats' }).count(), 0);
    await page.getByRole('button', { name: /^Generated s-0 / }).waitFor();
  });

  it('search shows 20 hits, then the rest with More results', async () => {
    await page.getByRole('searchbox').fill('zebrafish');
    const hits = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
    await until(async () => (await hits.count()) === 20, '20 hits');
    await page.getByRole('button', { name: 'More results' }).click();
    await until(async () => (await hits.count()) === NEEDLE_IN, `${NEEDLE_IN} hits`);
    assert.equal(await hits.count(), NEEDLE_IN);
    assert.equal(await page.getByRole('button', { name: 'More results' }).count(), 0);
    assert.deepEqual(errors, []);
  });

  it('says when a long query was cut to its first 16 words (English and Chinese); a short query says nothing', async () => {
    const box = page.getByRole('searchbox');
    const words = Array.from({ length: 18 }, (_, i) => `word${i}`);
    await box.fill(`zebrafish ${words.join(' ')}`);
    const note = page.getByRole('note');
    await note.waitFor();
    assert.equal(await note.innerText(), 'Only the first 16 different words were searched; 3 more were left out.');
    await assertAccessible(page, 'search with a cut query');
    await box.fill('zebrafish');
    await page.getByRole('list', { name: 'Search results' }).getByRole('listitem').first().waitFor();
    await until(async () => (await note.count()) === 0, 'the note gone for a short query');
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('searchbox').fill(`zebrafish ${words.join(' ')}`);
    await note.waitFor();
    assert.equal(await note.innerText(), '只搜索了前 16 个不同的词，其余 3 个已忽略。');
    await page.getByLabel('语言').selectOption('en');
    assert.deepEqual(errors, []);
  });
});
