import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import type { BackendProcess } from '../helpers/backend-process.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairedContext, startPairedUi } from './paired-page.js';
import { apiAs, axeViolations, mockProvider } from './chat-page-kit.js';

const LONG = 60_000;

describe('chat page: the context gauge and the note where a session was compacted', { timeout: 240_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    // Every reply reports 1,500 input tokens of a 2,000-token window: past the 50 % threshold.
    const usage = { prompt_tokens: 1500, completion_tokens: 5 };
    mock = await Aimock.start([
      { match: { userMessage: 'Summarize this conversation' }, response: { content: 'SUMMARY-OF-OLD: the user asked rounds.' } },
      { match: { userMessage: 'round' }, response: { content: 'Reply to a round.', usage } },
    ]);
    const paired = await startPairedUi();
    proc = paired.proc;
    const call = apiAs(proc.url, paired.credential);
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 2000 }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('PUT', '/api/profiles/small', { compression: { enabled: true, threshold_percent: 50, cooldown_seconds: 0 } });
    await call('POST', '/api/workspaces', { name: 'Small window', profile_id: 'small' });
    browser = await launchChromium();
    const context = await pairedContext(browser, proc, paired.credential);
    page = await context.newPage();
    errors = watchErrors(page);
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
  });

  it('marks the threshold on the gauge and shows the compaction note with its summary', async () => {
    await page.goto(proc.url + '/');
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText('Send a message to start.').waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    for (let n = 1; n <= 4; n++) {
      await box.fill(`round ${n}`);
      await box.press('Enter');
      await conversation
        .getByRole('article', { name: 'You' })
        .last()
        .filter({ hasText: `round ${n}` })
        .waitFor({ timeout: LONG });
      const reply = conversation.locator(`xpath=(//article[@aria-label='You'])[last()]/following::article[@aria-label='Assistant'][1]`);
      await reply.getByText('Reply to a round.').waitFor({ timeout: LONG });
      await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout: LONG });
    }
    const gauge = page.getByRole('meter', { name: 'Context' });
    assert.equal(await gauge.getAttribute('aria-valuemax'), '2000');
    assert.match((await gauge.getAttribute('aria-valuetext')) ?? '', /of 2,000 tokens .*compression at 50%/);
    const note = conversation.getByRole('note', { name: 'Earlier messages were summarised here to save context.' }).last();
    await note.waitFor({ timeout: LONG });
    await note.getByText('Summary', { exact: true }).click();
    await note.getByText('SUMMARY-OF-OLD: the user asked rounds.').waitFor();
    await screenshot(page, 'chat-09-compacted');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(errors, []);
  });
});
