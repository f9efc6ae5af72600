import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { api, tempDir, type BackendProcess } from '../helpers/backend-process.js';
import { articlePage, PageServer } from '../web/web-servers.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { apiAs, axeViolations } from './chat-page-kit.js';
import { claimByApi, pairedContext, startUiBackend } from './paired-page.js';

// The Knowledge page beyond dropped files: lists that follow other devices without a reload
// (config.changed), a folder on the backend's machine (patterns, then a file added on disk while it
// is watched) and a web page served by a local server the test starts, each to ready and searchable.

const LONG = 60_000;
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

describe('knowledge sources in Chromium: live lists across devices, a watched folder, a web page', { timeout: 600_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let owner = '';
  let member = '';
  let call: ReturnType<typeof apiAs>;
  let site: PageServer;
  let folder = '';
  const contexts: BrowserContext[] = [];
  const errorLists: string[][] = [];

  async function open(credential: string, options: BrowserContextOptions = {}): Promise<Page> {
    const context = await pairedContext(browser, proc, credential, options);
    contexts.push(context);
    return track(await context.newPage());
  }
  function track(page: Page): Page {
    errorLists.push(watchErrors(page));
    return page;
  }
  /** A flag in the page's window: still there later means the page was never reloaded. */
  const mark = (page: Page) => page.evaluate('window.__sameDocument = true');
  const sameDocument = async (page: Page) => (await page.evaluate('window.__sameDocument === true')) as boolean;
  const sourcesOf = (page: Page) => page.getByRole('region', { name: 'Sources', exact: true });
  /** Scrolls so that `region` starts at the top of the window (the screenshots show it and what follows). */
  const topOf = (region: Locator) => region.evaluate((el) => el.scrollIntoView({ block: 'start' }));

  async function search(page: Page, query: string) {
    const box = page.getByRole('region', { name: 'Search' });
    await box.getByLabel('Search this knowledge base').fill(query);
    await box.getByRole('button', { name: 'Search', exact: true }).click();
    return box;
  }

  async function noSideScroll(page: Page) {
    const overflow = (await page.evaluate('document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  }

  before(async () => {
    proc = await startUiBackend();
    owner = await claimByApi(proc);
    call = apiAs(proc.url, owner);
    const invite = await call('POST', '/api/selfhost/devices/invite', { name: 'Phone' });
    member = (await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.code } })).body.credential;
    site = await PageServer.start((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        articlePage(
          [
            'The kookaburra timetable lists the first departures of the harbour ferry at dawn.',
            'Late boats leave the pier every forty minutes until midnight in summer.',
          ],
          'Ferry timetable',
        ),
      );
    });
    // The real path: the backend names a folder source by it.
    folder = realpathSync(tempDir('kb-folder-'));
    mkdirSync(path.join(folder, 'notes'));
    mkdirSync(path.join(folder, 'drafts'));
    writeFileSync(path.join(folder, 'notes', 'census.md'), '# Census\n\nThe quokka census counted 412 animals on the island.\n');
    writeFileSync(path.join(folder, 'notes', 'survey.txt'), 'The numbat survey found nests along the creek.\n');
    writeFileSync(path.join(folder, 'drafts', 'bilby.md'), '# Draft\n\nThe bilby draft is not ready to be read.\n');
    writeFileSync(path.join(folder, 'notes', 'readme.csv'), 'name,count\nechidna,3\n');
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await site?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
    for (const errors of errorLists) assert.deepEqual(errors, []);
  });

  it('two devices: a KB created, sources added and removed, the KB deleted on one show on the other without a reload', async () => {
    const desk = await open(owner);
    const phone = await open(member);
    await desk.goto(`${proc.url}/#/knowledge`);
    await phone.goto(`${proc.url}/#/knowledge`);
    await phone.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor({ timeout: LONG });
    await desk.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor({ timeout: LONG });
    await mark(phone);

    // Created on the owner's desk: the member's list shows it.
    await desk.getByRole('button', { name: 'New knowledge base' }).click();
    const dialog = desk.getByRole('dialog', { name: 'New knowledge base' });
    await dialog.getByLabel('Name').fill('Harbour logs');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await desk.getByRole('heading', { name: 'Harbour logs', level: 1 }).waitFor({ timeout: LONG });
    await phone.getByRole('link', { name: 'Harbour logs' }).waitFor({ timeout: LONG });
    assert.ok(await sameDocument(phone), 'the list changed without a reload');
    assert.deepEqual(await axeViolations(phone), []);

    // Both on the KB: a note added on one shows on the other, both ways, and reaches ready there.
    await phone.getByRole('link', { name: 'Harbour logs' }).click();
    await phone.getByRole('heading', { name: 'Harbour logs', level: 1 }).waitFor({ timeout: LONG });
    const addNote = async (page: Page, title: string, text: string) => {
      await page.getByRole('button', { name: 'Add a note' }).click();
      const note = page.getByRole('dialog', { name: 'Add a note' });
      await note.getByLabel('Title').fill(title);
      await note.getByLabel('Text').fill(text);
      await note.getByRole('button', { name: 'Add' }).click();
      await note.waitFor({ state: 'detached' });
    };
    await addNote(desk, 'Tide table', 'High tide at the pier is at seven in the morning.');
    await sourcesOf(phone).locator('tr', { hasText: 'Tide table' }).locator('text=Ready').waitFor({ timeout: LONG });
    await addNote(phone, 'Crane memo', 'The harbour crane is serviced on Mondays.');
    await sourcesOf(desk).locator('tr', { hasText: 'Crane memo' }).locator('text=Ready').waitFor({ timeout: LONG });

    // Removed on the desk: gone from the phone.
    await sourcesOf(desk).getByRole('button', { name: 'Remove Tide table' }).click();
    await desk.getByRole('dialog', { name: 'Remove source?' }).getByRole('button', { name: 'Remove' }).click();
    await sourcesOf(phone).locator('tr', { hasText: 'Tide table' }).waitFor({ state: 'detached', timeout: LONG });
    assert.equal(await sourcesOf(phone).locator('tr', { hasText: 'Crane memo' }).count(), 1);

    // Deleted on the desk: the phone's list drops it, and a second tab still open on it says so.
    const tab = track(await phone.context().newPage());
    await tab.goto(`${proc.url}/#/knowledge`);
    await tab.getByRole('link', { name: 'Harbour logs' }).click();
    await sourcesOf(tab).locator('tr', { hasText: 'Crane memo' }).waitFor({ timeout: LONG });
    await phone.getByRole('link', { name: 'Knowledge bases' }).click();
    await phone.getByRole('link', { name: 'Harbour logs' }).waitFor({ timeout: LONG });
    await desk.getByRole('link', { name: 'Knowledge bases' }).click();
    await desk.getByRole('button', { name: 'Delete Harbour logs' }).click();
    await desk.getByRole('dialog', { name: 'Delete knowledge base?' }).getByRole('button', { name: 'Delete' }).click();
    await phone.getByRole('link', { name: 'Harbour logs' }).waitFor({ state: 'detached', timeout: LONG });
    await tab.getByText('This knowledge base no longer exists: it was deleted, here or on another device.').waitFor({ timeout: LONG });
    assert.equal(await tab.getByRole('region', { name: 'Sources', exact: true }).count(), 0, 'nothing of it is left to use');
    assert.ok(await sameDocument(phone), 'every change arrived without a reload');
    assert.deepEqual(await axeViolations(tab), []);
  });

  it('a folder on the backend machine with include/exclude patterns reaches ready; a file added on disk follows', async () => {
    const kb = await call('POST', '/api/knowledge', { name: 'Field notes' });
    const page = await open(owner);
    await page.goto(`${proc.url}/#/knowledge/${kb.id}`);
    await page.getByRole('heading', { name: 'Field notes', level: 1 }).waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Add a folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a folder' });
    await dialog.getByLabel('Folder on the backend’s computer').fill(folder);
    await dialog.getByLabel('Include patterns').fill('**/*.md, **/*.txt');
    await dialog.getByLabel('Exclude patterns').fill('drafts/**');
    assert.deepEqual(await axeViolations(page), []);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The two matching files: not the excluded draft, not the CSV the include leaves out.
    const row = sourcesOf(page).locator('tr', { hasText: folder });
    await row.locator('text=Ready').waitFor({ timeout: LONG });
    // The counts come with the refetch that follows the ready frame.
    await row.getByText('2 files').waitFor({ timeout: LONG });
    assert.match((await row.textContent()) ?? '', /Folder · [\d.]+ B · 2 files/);
    const [stored] = (await call('GET', `/api/knowledge/${kb.id}/sources`)).sources;
    assert.deepEqual([stored.include, stored.exclude], [['**/*.md', '**/*.txt'], ['drafts/**']]);
    let results = await search(page, 'quokka census');
    const hit = results.getByRole('list', { name: 'Passages for “quokka census”' }).getByRole('listitem').first();
    await hit.waitFor({ timeout: LONG });
    assert.match((await hit.textContent()) ?? '', /notes\/census\.md.*counted 412 animals/s);
    results = await search(page, 'bilby');
    await results.getByText('Nothing relevant found for “bilby”.').waitFor({ timeout: LONG });

    // A file written into the folder while the page is open: the row counts it and search finds it.
    await mark(page);
    writeFileSync(path.join(folder, 'notes', 'burrows.md'), '# Burrows\n\nThe wombat burrow map marks nine entrances.\n');
    await row.getByText('3 files').waitFor({ timeout: LONG });
    await row.locator('text=Ready').waitFor({ timeout: LONG });
    results = await search(page, 'wombat burrow');
    const added = results.getByRole('list', { name: 'Passages for “wombat burrow”' }).getByRole('listitem').first();
    await added.waitFor({ timeout: LONG });
    assert.match((await added.textContent()) ?? '', /notes\/burrows\.md.*nine entrances/s);
    assert.ok(await sameDocument(page), 'the new file showed without a reload');
    await topOf(sourcesOf(page));
    await screenshot(page, 'knowledge-07-folder');
    assert.deepEqual(await axeViolations(page), []);

    const phone = await open(owner, PHONE);
    await phone.goto(`${proc.url}/#/knowledge/${kb.id}`);
    const small = sourcesOf(phone).locator('tr', { hasText: folder });
    await small.getByText('3 files').waitFor({ timeout: LONG });
    await noSideScroll(phone);
    await small.scrollIntoViewIfNeeded();
    await screenshot(phone, 'knowledge-08-folder-390');
    assert.deepEqual(await axeViolations(phone), []);
  });

  it('a web page on a local server: refused by the address guard with the reason, then allowed, read, ready and searchable', async () => {
    const kb = await call('POST', '/api/knowledge', { name: 'Ferry' });
    await call('PUT', '/api/config/web', { web_search: { providers: [], approval: 'auto' }, web_fetch: { allow_hosts: [] } });
    const page = await open(owner);
    await page.goto(`${proc.url}/#/knowledge/${kb.id}`);
    await page.getByRole('heading', { name: 'Ferry', level: 1 }).waitFor({ timeout: LONG });
    const address = `${site.url}/timetable`;
    await page.getByRole('button', { name: 'Add a web page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a web page' });
    await dialog.getByLabel('Address').fill(address);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await dialog.waitFor({ state: 'detached' });

    // 127.0.0.1 is a loopback address: refused until listed in web_fetch.allow_hosts, and the row says so.
    const row = sourcesOf(page).locator('tr', { hasText: address });
    await row.locator('.badge', { hasText: 'Failed' }).waitFor({ timeout: LONG });
    assert.match((await row.textContent()) ?? '', /Failed: .*\(fetch_failed\)/s);
    assert.equal(site.hits.length, 0, 'the guard refused before connecting');

    // The allowlist (what a LAN wiki needs, and what the URL-source tests use), then Retry.
    await call('PUT', '/api/config/web', { web_search: { providers: [], approval: 'auto' }, web_fetch: { allow_hosts: [site.host] } });
    await row.getByRole('button', { name: `Retry ${address}` }).click();
    await row.locator('text=Ready').waitFor({ timeout: LONG });
    assert.ok(site.hits.some((h) => h.path === '/timetable'));
    assert.match((await row.textContent()) ?? '', /Web page/);
    const results = await search(page, 'kookaburra ferry');
    const hit = results.getByRole('list', { name: 'Passages for “kookaburra ferry”' }).getByRole('listitem').first();
    await hit.waitFor({ timeout: LONG });
    const text = (await hit.textContent()) ?? '';
    assert.match(text, /first departures of the harbour ferry at dawn/);
    assert.doesNotMatch(text, /NAVLINK|FOOTER-TEXT|SCRIPT-CONTENT/, 'the page is read without its navigation, footer or scripts');
    await topOf(sourcesOf(page));
    await screenshot(page, 'knowledge-09-url');
    assert.deepEqual(await axeViolations(page), []);

    const phone = await open(owner, PHONE);
    await phone.goto(`${proc.url}/#/knowledge/${kb.id}`);
    await sourcesOf(phone).locator('tr', { hasText: address }).locator('text=Ready').waitFor({ timeout: LONG });
    const small = await search(phone, 'kookaburra');
    const first = small.getByRole('list', { name: 'Passages for “kookaburra”' }).getByRole('listitem').first();
    await first.waitFor({ timeout: LONG });
    await noSideScroll(phone);
    await topOf(small);
    await screenshot(phone, 'knowledge-10-url-390');
    assert.deepEqual(await axeViolations(phone), []);
  });
});
