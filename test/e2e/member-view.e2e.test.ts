import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';
import { mockProvider } from './chat-page-kit.js';

/** DESIGN 16 in the UI: a member device sees settings it cannot change, disabled, and is told why. */
describe('a member device in the UI', { timeout: 180_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let owner = '';
  const errors: string[] = [];

  before(async () => {
    const uiDir = await buildRenderer();
    proc = await BackendProcess.start({ env: { SERVICE_UI_DIR: uiDir } });
    await proc.waitForLine(/^pairing code: \d{6}/);
    const claim = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: proc.pairingCode(), display_name: 'Desk' } });
    owner = claim.body.credential;
    await api(proc.url, 'POST', '/api/config/providers', {
      credential: owner,
      body: mockProvider('http://127.0.0.1:9', { context_window: 32_000 }),
    });
    await api(proc.url, 'POST', '/api/mcp/global/servers', { credential: owner, body: { name: 'files', server: { command: 'echo' } } });
    const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential: owner, body: {} });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    errors.push(...watchErrors(page));
    await page.goto(`${proc.url}/#invite=${invite.body.code}`);
    const join = page.getByRole('form', { name: 'Join with an invite' });
    await join.getByLabel('Name of this device').fill('Kid tablet');
    await join.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('link', { name: 'Connection' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await proc?.stop();
  });

  it('settings pages are readable, every control disabled, with the reason; the log is not shown', async () => {
    await page.getByRole('link', { name: 'Providers' }).click();
    await page
      .getByRole('note')
      .getByText('This device is a member: only an owner device can change providers and the default model.')
      .waitFor();
    await page.getByText('Mock', { exact: true }).first().waitFor();
    const add = page.getByRole('button', { name: 'Add provider' });
    assert.equal(await add.isDisabled(), true, 'Add provider is disabled');
    await assertAccessible(page, 'providers page of a member');
    await screenshot(page, 'member-1280-providers');

    await page.getByRole('link', { name: 'Tool servers' }).click();
    await page
      .getByRole('note')
      .getByText(/only an owner device can add, change or remove tool servers/)
      .waitFor();
    const enabled = await page
      .locator('fieldset.owner-only')
      .locator('button:enabled, input:enabled, select:enabled, textarea:enabled')
      .count();
    assert.equal(enabled, 0, 'no control of the tool-server page is usable');
    await assertAccessible(page, 'tool servers page of a member');

    await page.getByRole('link', { name: 'Logs' }).click();
    await page
      .getByRole('note')
      .getByText(/only an owner device can read the service log/)
      .waitFor();
    assert.equal(await page.getByText('Recent lines').count(), 0);
  });

  it('Connection: no invite or reset, roles and the inviter in the list', async () => {
    await page.getByRole('link', { name: 'Connection' }).click();
    const card = page.getByRole('region', { name: 'Devices' });
    const mine = card.getByRole('row', { name: /Kid tablet/ });
    await mine.getByText('Member').waitFor();
    await mine.getByText('invited by Desk').waitFor();
    await card.getByRole('row', { name: /Desk/ }).getByText('Owner').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add a device' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Revoke/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Reset pairing' }).count(), 0);
    await card
      .getByRole('note')
      .getByText(/only an owner device can invite, revoke devices or reset pairing/)
      .waitFor();
    await assertAccessible(page, 'connection page of a member');
    await screenshot(page, 'member-1280-connection');
  });

  it('the owner’s revoke confirmation names the devices its invites let in', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await context.addInitScript({
      content: `localStorage.setItem(${JSON.stringify(`service.credential:${proc.url}`)}, ${JSON.stringify(owner)});`,
    });
    const desk = await context.newPage();
    await desk.goto(proc.url + '/#/connection');
    const card = desk.getByRole('region', { name: 'Devices' });
    await card
      .getByRole('row', { name: /Kid tablet/ })
      .getByText('invited by Desk')
      .waitFor();
    await desk.getByRole('button', { name: 'Revoke Desk' }).click();
    const confirm = desk.getByRole('dialog', { name: 'Revoke Desk?' });
    await confirm.getByText('These devices it invited lose access too: Kid tablet.').waitFor();
    await assertAccessible(desk, 'revoke confirmation naming the cascade');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await context.close();
  });

  it('in Chinese the reason is Chinese', async () => {
    await page.evaluate(`localStorage.setItem('service.language', 'zh')`);
    await page.reload();
    await page.getByRole('note').getByText('此设备是成员：只有所有者设备可以邀请或撤销设备、重置配对。').waitFor();
    assert.deepEqual(errors, []);
  });
});
