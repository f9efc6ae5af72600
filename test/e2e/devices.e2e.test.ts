import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';
import { apiAs, mockProvider, pageCredential } from './chat-page-kit.js';

/** Nothing wider than the window (the page would scroll sideways on a phone). */
async function assertFits(page: Page, where: string): Promise<void> {
  // Against the viewport's own width: a mobile browser widens its layout viewport to fit wide content.
  const width = page.viewportSize()!.width;
  const result = (await page.evaluate(`(() => {
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > ${width} + 1 && el.getClientRects().length > 0 && !el.closest('.table-wrap, pre'))
      .slice(0, 3).map((el) => el.tagName + '.' + el.className);
    return { doc: document.documentElement.scrollWidth - ${width}, wide };
  })()`)) as { doc: number; wide: string[] };
  assert.ok(result.doc <= 0 && result.wide.length === 0, `${where} overflows sideways: ${JSON.stringify(result)}`);
}

const visible = (page: Page, selector: string) => page.locator(selector).isVisible();

/** Two browsers as two devices: a desktop (1280×800) invites a phone (390×844), then revokes it. */
describe('devices in the UI: invite with QR, join from a phone, revoke', { timeout: 180_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let desktop: Page;
  let phoneContext: BrowserContext;
  let phone: Page;
  const errors: string[] = [];

  before(async () => {
    proc = await startUiBackend();
    browser = await launchChromium();
    desktop = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors.push(...watchErrors(desktop));
    await pairInPage(desktop, proc);
    phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', isMobile: true, hasTouch: true });
    phone = await phoneContext.newPage();
    errors.push(...watchErrors(phone));
  });
  after(async () => {
    await browser?.close();
    await proc?.stop();
  });

  it('Connection lists this device; "Add a device" shows the code, the URL and a QR code of that URL', async () => {
    await desktop.getByRole('link', { name: 'Connection' }).click();
    const table = desktop.getByRole('region', { name: 'Devices' }).getByRole('table');
    await table.getByText('This device', { exact: true }).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 1);
    await assertAccessible(desktop, 'connection page with devices');
    await screenshot(desktop, 'devices-1280-connection');

    await desktop.getByRole('button', { name: 'Add a device' }).click();
    const dialog = desktop.getByRole('dialog', { name: 'Add a device' });
    const qr = dialog.getByRole('img', { name: /^QR code of / });
    await qr.waitFor();
    const url = (await dialog.locator('.invite-url').innerText()).trim();
    const code = (await dialog.locator('.invite-code').innerText()).replace(/\s+/g, '');
    assert.match(code, /^\d{6}$/);
    assert.equal(url, `${proc.url}/#invite=${code}`);
    assert.equal(await qr.getAttribute('aria-label'), `QR code of ${url}`);
    assert.ok(Number(await qr.getAttribute('data-modules')) >= 25, 'a real QR matrix (version 2 or more for this URL)');
    assert.ok((await qr.locator('path').getAttribute('d'))!.length > 1000, 'dark modules drawn');
    await dialog.getByText(/Expires in \d+:\d\d/).waitFor();
    await dialog.getByText('This address only works on this computer').waitFor();
    await assertAccessible(desktop, 'invite dialog');
    await screenshot(desktop, 'devices-1280-invite');

    // The phone opens the URL the QR code carries: the code is filled in, it joins with its own name.
    await phone.goto(url);
    const join = phone.getByRole('form', { name: 'Join with an invite' });
    await join.waitFor();
    assert.equal(await join.getByLabel('Invite code').inputValue(), code);
    await assertFits(phone, 'join screen at 390');
    await assertAccessible(phone, 'join screen at 390');
    await screenshot(phone, 'devices-390-join');
    await join.getByLabel('Name of this device').fill('Test phone');
    await join.getByRole('button', { name: 'Join' }).click();
    // Paired: the app opens on Chat (on a phone without a workspace, on its setup step).
    await phone.getByText('No workspace yet').waitFor();
    assert.equal(await phone.getByRole('link', { name: 'Chat', exact: true }).getAttribute('aria-current'), 'page');
    await assertFits(phone, 'chat setup at 390');
    assert.ok(!phone.url().includes('invite='), 'the spent code leaves the address bar');

    await dialog.getByText('The new device joined').waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await table.getByText('Test phone').waitFor();
    assert.equal(await table.locator('tbody tr').count(), 2);
  });

  it('at 390 px the Connection page fits, marks the phone as this device, and chat and the session list are separate views', async () => {
    await phone.getByRole('link', { name: 'Connection' }).click();
    const row = phone.getByRole('row', { name: /Test phone/ });
    await row.getByText('This device', { exact: true }).waitFor();
    await assertFits(phone, 'connection page at 390');
    await assertAccessible(phone, 'connection page at 390');
    await screenshot(phone, 'devices-390-connection');

    // The desktop sets up: the phone joined as a member, which cannot add providers (DESIGN 16).
    const call = apiAs(proc.url, await pageCredential(desktop));
    await call('POST', '/api/config/providers', mockProvider('http://127.0.0.1:9', { context_window: 32_000 }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    const ws = await call('POST', '/api/workspaces', { name: 'Home' });
    const wsId = (ws.id ?? ws.workspace?.id) as string;
    await call('POST', `/api/workspaces/${wsId}/sessions`, { title: 'Groceries' });
    await call('POST', `/api/workspaces/${wsId}/sessions`, { title: 'Holiday plans' });

    await phone.getByRole('link', { name: 'Chat', exact: true }).click();
    await phone
      .getByRole('button', { name: /Holiday plans/ })
      .first()
      .waitFor();
    assert.equal(await visible(phone, '.chat-side'), true, 'the list first');
    assert.equal(await visible(phone, '.chat-main'), false, 'no conversation beside it');
    await assertFits(phone, 'chat list at 390');
    await screenshot(phone, 'devices-390-chat-list');

    await phone
      .getByRole('button', { name: /Groceries/ })
      .first()
      .click();
    await phone.getByRole('button', { name: 'Chats' }).waitFor();
    assert.equal(await visible(phone, '.chat-side'), false, 'the list gives way to the conversation');
    assert.equal(await visible(phone, '.chat-main'), true);
    await assertFits(phone, 'conversation at 390');
    await assertAccessible(phone, 'conversation at 390');
    await screenshot(phone, 'devices-390-chat-conversation');
    await phone.getByRole('button', { name: 'Chats' }).click();
    assert.equal(await visible(phone, '.chat-side'), true, 'back to the list');

    // At 1280 both stay side by side.
    await desktop.getByRole('link', { name: 'Chat', exact: true }).click();
    await desktop.locator('.chat-side').waitFor();
    assert.equal(await visible(desktop, '.chat-main'), true);
    assert.equal(await visible(desktop, '.chat-back'), false);
  });

  it('revoking the phone (after confirming) sends it back to the pairing screen', async () => {
    await phone.getByRole('link', { name: 'Connection' }).click();
    await phone.getByRole('region', { name: 'Devices' }).waitFor();
    await desktop.getByRole('link', { name: 'Connection' }).click();
    await desktop.getByRole('button', { name: 'Revoke Test phone' }).click();
    const confirm = desktop.getByRole('dialog', { name: 'Revoke Test phone?' });
    await confirm.getByText('loses access at once').waitFor();
    await screenshot(desktop, 'devices-1280-revoke-confirm');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await confirm.waitFor({ state: 'hidden' });
    const table = desktop.getByRole('region', { name: 'Devices' }).getByRole('table');
    await table.getByText('Test phone').waitFor({ state: 'detached' });

    await phone.getByRole('form', { name: 'Join with an invite' }).waitFor({ timeout: 15_000 });
    await screenshot(phone, 'devices-390-revoked');
    assert.deepEqual(errors, []);
  });
});
