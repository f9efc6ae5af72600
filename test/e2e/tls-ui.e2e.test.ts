import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';

/** The UI served over `-tls auto`: pairing over HTTPS, live updates over WSS, the fingerprint shown. */
describe('the web UI over HTTPS/WSS (-tls auto)', { timeout: 120_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let fingerprint: string;

  before(async () => {
    proc = await startUiBackend({ args: ['-tls', 'auto'] });
    fingerprint = (await proc.waitForLine(/^tls fingerprint: (SHA256:[0-9A-F:]+)$/))[1];
    browser = await launchChromium();
    // The user accepted the self-signed certificate (after comparing its fingerprint with the log).
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', ignoreHTTPSErrors: true });
    page = await context.newPage();
    errors = watchErrors(page);
  });
  after(async () => {
    await browser?.close();
    await proc?.stop();
  });

  it('pairs, goes live over WSS, and shows the fingerprint the log printed', async () => {
    assert.match(proc.url, /^https:/);
    await pairInPage(page, proc);
    await page.getByRole('link', { name: 'Connection' }).click();
    await page.getByText(fingerprint).waitFor();
    await page.locator('.sidebar .live', { hasText: 'Live' }).waitFor({ timeout: 15_000 });
    await assertAccessible(page, 'connection page over HTTPS at 390');
    await screenshot(page, 'tls-390-connection');
    assert.deepEqual(errors, []);
  });
});
