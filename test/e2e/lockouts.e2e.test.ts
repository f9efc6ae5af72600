import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { BackendProcess } from '../helpers/backend-process.js';
import { buildRenderer, launchChromium, screenshot } from './browser.js';

function apiCall(page: Page, method: string, suffix: string): Promise<Response> {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === suffix);
}

async function pair(page: Page, code: string): Promise<void> {
  await page.getByLabel('Pairing code').fill(code);
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  // The UI opens on the chat page; these tests work on the settings pages.
  await page.getByRole('navigation').getByRole('link', { name: 'Providers' }).click();
  await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
}

/** Waits for a pairing code logged after line `from`. */
async function newCode(proc: BackendProcess, from: number): Promise<string> {
  return (await proc.waitForLine(/^pairing code: (\d{6}) /, 15_000, from))[1];
}

/**
 * Issue 18, points 1-4: the paths that locked a paired user out or silently destroyed data, each
 * driven in Chromium against the real backend.
 */
describe('no lockouts, no silent overwrites', { timeout: 300_000 }, () => {
  let ui: BackendProcess; // only serves the UI from a stable origin (as the desktop app or a dev server would)
  let proc: BackendProcess;
  let browser: Browser;
  let ctx: BrowserContext;
  let a1: Page;
  const file = (name: string) => readFileSync(path.join(proc.dataDir, name), 'utf8');

  before(async () => {
    const uiDir = await buildRenderer();
    ui = await BackendProcess.start({ env: { SERVICE_UI_DIR: uiDir }, args: ['-swap-port', 'off'] });
    proc = await BackendProcess.start({ env: { SERVICE_UI_DIR: uiDir }, args: ['-allow-origin', ui.url] });
    await proc.waitForLine(/^pairing code: \d{6}/);
    browser = await launchChromium();
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    a1 = await ctx.newPage();
    await a1.goto(proc.url + '/');
    await pair(a1, proc.pairingCode()!);
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    await ui?.stop();
    proc?.cleanup();
    ui?.cleanup();
  });

  it('1. rotating keeps this window and its sibling tab working; a client with the old credential is told to pair again', async () => {
    const a2 = await ctx.newPage();
    await a2.goto(proc.url + '/#/skills');
    await a2.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    const outsider = await browser.newContext({ locale: 'en-US' });
    const old = (await a1.evaluate('Object.entries(localStorage).find(([k]) => k.startsWith("service.credential"))')) as [string, string];
    await outsider.addInitScript(`localStorage.setItem(${JSON.stringify(old[0])}, ${JSON.stringify(old[1])})`);
    const b = await outsider.newPage();
    await b.goto(proc.url + '/#/providers');
    await b.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();

    await a1.getByRole('link', { name: 'Connection' }).click();
    const rotated = apiCall(a1, 'POST', '/api/selfhost/credential/rotate');
    await a1.getByRole('button', { name: 'Rotate credential' }).click();
    assert.equal((await rotated).status(), 200);
    await a1.getByText('The credential was rotated; this window now uses the new one.').waitFor();
    // This window keeps working with the new credential: live again, and an authenticated page loads.
    await a1.getByRole('status', { name: 'Live updates' }).first().getByText('Live').waitFor({ timeout: 20_000 });
    const list = apiCall(a1, 'GET', '/api/config/providers');
    await a1.getByRole('link', { name: 'Providers' }).click();
    assert.equal((await list).status(), 200);
    assert.equal(await a1.getByLabel('Pairing code').count(), 0);
    const stored = (await a1.evaluate(`localStorage.getItem(${JSON.stringify(old[0])})`)) as string;
    assert.match(stored, /^svc_/);
    assert.notEqual(stored, old[1]);

    // The sibling tab (same storage) follows the new credential instead of being signed out.
    const servers = apiCall(a2, 'GET', '/api/mcp/global');
    await a2.getByRole('link', { name: 'Tool servers' }).click();
    assert.equal((await servers).status(), 200);
    await a2.getByRole('status', { name: 'Live updates' }).first().getByText('Live').waitFor({ timeout: 20_000 });
    assert.equal(await a2.getByLabel('Pairing code').count(), 0);

    // Another client still holding the old credential learns it must pair again, and how.
    await b.getByText('no longer accepts this window’s credential').waitFor({ timeout: 30_000 });
    await b.getByText(/This backend is already paired with/).waitFor();
    await screenshot(b, 'lockout-rotated-elsewhere');
    await a2.close();
    await outsider.close();
  });

  it('2. "Forget credential on this device" confirms first and offers resetting pairing as the way back', async () => {
    await a1.getByRole('link', { name: 'Connection' }).click();
    await a1.getByRole('button', { name: 'Forget credential on this device' }).click();
    const dialog = a1.getByRole('dialog', { name: 'Forget the credential on this device?' });
    await dialog.getByText(/logs a new pairing code/).waitFor();
    await screenshot(a1, 'lockout-forget-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // Still paired: nothing was forgotten.
    await a1.getByRole('heading', { name: 'Connection', level: 1 }).waitFor();
    assert.ok(await a1.evaluate('Object.keys(localStorage).some((k) => k.startsWith("service.credential"))'));
    // Focus goes back to the button that opened the dialog.
    assert.equal(await a1.evaluate('document.activeElement?.textContent'), 'Forget credential on this device');

    await a1.getByRole('button', { name: 'Forget credential on this device' }).click();
    const from = proc.lines.length;
    await dialog.getByRole('button', { name: 'Reset pairing and forget' }).click();
    const code = await newCode(proc, from);
    await a1.getByLabel('Pairing code').waitFor();
    await pair(a1, code);
  });

  it('3. creating a tool server or skill with a name in use is refused at the name, and edits keep the old version in trash', async () => {
    await a1.getByRole('link', { name: 'Tool servers' }).click();
    const add = async (name: string, command: string) => {
      await a1.getByRole('button', { name: 'Add server' }).click();
      const dialog = a1.getByRole('dialog', { name: 'Add tool server' });
      await dialog.getByLabel('Server name').fill(name);
      await dialog.getByLabel('Command').fill(command);
      await dialog.getByLabel('Environment').fill('TOKEN=abc');
      const res = apiCall(a1, 'POST', '/api/mcp/global/servers');
      await dialog.getByRole('button', { name: 'Save' }).click();
      return { dialog, status: (await res).status() };
    };
    assert.equal((await add('files', 'npx')).status, 201);
    await a1.getByRole('row').filter({ hasText: 'files' }).waitFor();
    const again = await add('files', 'evil');
    assert.equal(again.status, 409);
    await again.dialog
      .locator('.field')
      .filter({ has: a1.getByLabel('Server name') })
      .getByText('A tool server named “files” already exists here.')
      .waitFor();
    assert.deepEqual(JSON.parse(file('global_mcp_servers.json')).mcpServers.files, { command: 'npx', env: { TOKEN: 'abc' } });
    // The dialog holds unsaved edits: closing it asks first.
    await again.dialog.getByRole('button', { name: 'Cancel' }).click();
    await again.dialog.getByRole('button', { name: 'Discard' }).click();
    await again.dialog.waitFor({ state: 'detached' });

    await a1.getByRole('button', { name: 'Edit files' }).click();
    const edit = a1.getByRole('dialog', { name: /Edit/ });
    await edit.getByLabel('Command').fill('node');
    const saved = apiCall(a1, 'PUT', '/api/mcp/global/servers/files');
    await edit.getByRole('button', { name: 'Save' }).click();
    assert.equal((await saved).status(), 200);
    const trashed = readdirSync(path.join(proc.dataDir, 'trash')).filter((n) => n.startsWith('mcp-global-files-'));
    assert.equal(trashed.length, 1);
    assert.deepEqual(JSON.parse(file(`trash/${trashed[0]}/mcp_servers.json`)).mcpServers.files.command, 'npx');

    await a1.getByRole('link', { name: 'Skills' }).click();
    const newSkill = async () => {
      await a1.getByRole('button', { name: 'New skill' }).click();
      const dialog = a1.getByRole('dialog', { name: 'New skill' });
      await dialog.getByLabel('Skill name').fill('notes');
      const res = apiCall(a1, 'PUT', '/api/skills/notes');
      await dialog.getByRole('button', { name: 'Save' }).click();
      return { dialog, status: (await res).status() };
    };
    assert.equal((await newSkill()).status, 201);
    await a1.getByRole('row').filter({ hasText: 'notes' }).waitFor();
    await a1.getByRole('button', { name: 'Edit notes' }).click();
    const skillEdit = a1.getByRole('dialog', { name: /notes/ });
    await skillEdit.getByLabel('SKILL.md').fill('---\nname: notes\ndescription: Mine\n---\n\nMy careful instructions.\n');
    const put = apiCall(a1, 'PUT', '/api/skills/notes');
    await skillEdit.getByRole('button', { name: 'Save' }).click();
    assert.equal((await put).status(), 200);
    const dup = await newSkill();
    assert.equal(dup.status, 409);
    await dup.dialog.getByText('A skill named “notes” already exists.').waitFor();
    assert.match(file('skills/notes/SKILL.md'), /My careful instructions/);
    assert.ok(readdirSync(path.join(proc.dataDir, 'trash')).some((n) => n.startsWith('skill-notes-')));
    await screenshot(a1, 'lockout-skill-exists');
    await dup.dialog.getByRole('button', { name: 'Cancel' }).click();
    await dup.dialog.getByRole('button', { name: 'Discard' }).click();
    await dup.dialog.waitFor({ state: 'detached' });
  });

  it('4. a paired-elsewhere backend says so before asking for a code; a new address is never handed the old credential', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const page = await other.newPage();
    await page.goto(ui.url + '/');
    await page.getByRole('button', { name: 'Change' }).click();
    await page.getByLabel('Backend URL').fill(`127.0.0.1:${proc.port}`); // bare host:port: http:// is added
    await page.getByRole('button', { name: 'Use this URL' }).click();
    await page.getByText(`http://127.0.0.1:${proc.port}`, { exact: true }).waitFor();
    // Paired with the first browser: said up front, with the way out, and no code field.
    await page.getByText(/This backend is already paired with Browser/).waitFor();
    await page.getByText('npm run backend -- reset-pairing').waitFor();
    assert.equal(await page.getByLabel('Pairing code').count(), 0);
    await screenshot(page, 'lockout-bound-up-front');

    // Reset from the paired window: this page notices by itself and asks for the new code.
    const from = proc.lines.length;
    await a1.getByRole('link', { name: 'Connection' }).click();
    await a1.getByRole('button', { name: 'Reset pairing' }).click();
    await a1.getByRole('dialog', { name: 'Reset pairing' }).getByRole('button', { name: 'Reset pairing' }).click();
    const code = await newCode(proc, from);
    await page.getByLabel('Pairing code').waitFor({ timeout: 20_000 });
    await pair(page, code);

    // Restart on a new port: offline banner while it is down, then the same credential at a new address.
    const dataDir = proc.dataDir;
    await proc.stop();
    await page.getByText(/is not answering\. Changes are disabled/).waitFor({ timeout: 30_000 });
    await page.locator('fieldset.page-gate[disabled]').getByRole('button', { name: 'Add provider' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add provider' }).isDisabled(), true);
    await screenshot(page, 'lockout-offline');
    proc = await BackendProcess.start({ dataDir, env: { SERVICE_UI_DIR: process.env.SERVICE_UI_DIR }, args: ['-allow-origin', ui.url] });
    await page.reload();
    await page.getByRole('button', { name: 'Change' }).click();
    await page.getByLabel('Backend URL').fill(`localhost:${proc.port}`);
    await page.getByRole('button', { name: 'Use this URL' }).click();
    // DESIGN 16: a credential goes only to the origin it was stored for. The same node id reported
    // at a new address is no proof (any server can claim it): this address is paired elsewhere.
    await page.getByText(/This backend is already paired with/).waitFor();
    assert.equal(await page.getByLabel('Pairing code').count(), 0);
    assert.ok(!proc.output().match(/GET \/api\/config\/providers 200/), 'the stored credential was not sent to the new address');
    assert.ok(existsSync(path.join(dataDir, 'selfhost', 'pairing.json')));
    await other.close();
  });
});
