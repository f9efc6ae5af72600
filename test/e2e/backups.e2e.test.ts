import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { openPaired } from './paired-page.js';

/** The Backups page: take one, see it listed with date and size, restore it (confirmed), delete. */
describe('backups page', { timeout: 120_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let credential: string;

  before(async () => {
    ({ proc, browser, page, errors, credential } = await openPaired({ backend: { args: ['-swap-port', 'off'] } }));
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
  });

  it('back up now, restore with confirmation (the backend restarts on the old data), delete', async () => {
    const ws = await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Before the backup' } });
    assert.equal(ws.status, 201);
    await page.getByRole('link', { name: 'Backups' }).click();
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    await page.getByText('No backups yet.').waitFor();
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page.getByText(/Backup backup-.*-manual\.tar\.gz written\./).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Manual' });
    await row.waitFor();
    assert.match(await row.innerText(), /\d+(\.\d)? KB/);

    await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'After the backup' } });
    await row.getByRole('button', { name: /^Restore the backup of / }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore this backup?' });
    await dialog.getByText(/The current state is saved as a snapshot first/).waitFor();
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored. The backend is running on the restored data.').waitFor({ timeout: 30_000 });
    await page.getByRole('row').filter({ hasText: 'Before a restore' }).waitFor();
    const names = (await api(proc.url, 'GET', '/api/workspaces', { credential })).body.workspaces.map((w: { name: string }) => w.name);
    assert.deepEqual(names, ['Before the backup']);

    await row.getByRole('button', { name: /^Delete the backup of / }).click();
    await page.getByRole('dialog', { name: 'Delete this backup?' }).getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|WebSocket/.test(e)),
      [],
    );
  });
});
