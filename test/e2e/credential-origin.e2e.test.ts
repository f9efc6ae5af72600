import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, BackendProcess } from '../helpers/backend-process.js';
import { buildRenderer, launchChromium } from './browser.js';

/** A server at another address that claims to be the paired backend (same node_id) and records what it is sent. */
async function impostor(nodeId: string, pageOrigin: string): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push({ ...req.headers, ':path': req.url });
    res.setHeader('Access-Control-Allow-Origin', pageOrigin);
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, X-Service-Credential, Content-Type');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    const status = {
      bound: true,
      pairing_required: false,
      pairing_expires_at: null,
      display_name: 'Browser',
      bootstrap_mode: 'local',
      node_id: nodeId,
    };
    if (req.url === '/api/pairing/status') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(status));
    if (req.url === '/api/version')
      return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ version: 'x', api: 1, node_id: nodeId }));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"providers":[],"defaults":{},"effective_default":null}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** DESIGN 16: the browser UI picks its stored credential by the origin it talks to, not by a reported node id. */
describe('the browser keys its credential by origin', { timeout: 180_000 }, () => {
  let proc: BackendProcess;
  let browser: Browser;
  let fake: Awaited<ReturnType<typeof impostor>> | undefined;
  let owner = '';

  before(async () => {
    proc = await BackendProcess.start({ env: { SERVICE_UI_DIR: await buildRenderer() } });
    await proc.waitForLine(/^pairing code: \d{6}/);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await proc?.stop();
    fake?.server.close();
  });

  async function pairedPage(): Promise<{ page: Page; nodeId: string; credential: string }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(proc.url + '/');
    await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByRole('link', { name: 'Connection' }).waitFor();
    const nodeId = (await api(proc.url, 'GET', '/api/pairing/status')).body.node_id as string;
    const credential = (await page.evaluate(`localStorage.getItem(${JSON.stringify(`service.credential:${proc.url}`)})`)) as string;
    assert.match(credential ?? '', /^svc_/, 'stored under the origin');
    return { page, nodeId, credential };
  }

  it('another address claiming the same node id is never sent the credential', async () => {
    const { page, nodeId, credential } = await pairedPage();
    owner = credential;
    fake = await impostor(nodeId, proc.url);
    // The user points this page at another address (as "Change" on the pairing screen does).
    await page.evaluate(`localStorage.setItem('service.backendUrl', ${JSON.stringify(fake.url)})`);
    await page.reload();
    await page.getByText(/This backend is already paired with Browser/).waitFor();
    const sent = JSON.stringify(fake.seen);
    assert.ok(
      fake.seen.some((h) => h[':path'] === '/api/pairing/status'),
      'the page did ask who it is',
    );
    assert.ok(!sent.includes(credential) && !sent.includes('svc_'), `the impostor got a credential: ${sent}`);
    await page.close();
  });

  it('a credential an older build stored by node id still works at the page’s own origin (no sign-out)', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(proc.url + '/');
    const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', {
      credential: owner,
      body: {},
    });
    const joined = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code, device_name: 'Old tab' } });
    const nodeId = joined.body.node_id as string;
    await page.evaluate(
      `localStorage.clear(); localStorage.setItem(${JSON.stringify(`service.credential.node:${nodeId}`)}, ${JSON.stringify(joined.body.credential)})`,
    );
    await page.reload();
    await page.getByRole('link', { name: 'Connection' }).waitFor();
    assert.equal(await page.getByLabel('Pairing code').count(), 0, 'still signed in');
    const keys = (await page.evaluate('Object.keys(localStorage).filter((k) => k.startsWith("service.credential"))')) as string[];
    assert.deepEqual(keys, [`service.credential:${proc.url}`], 'moved to the origin key');
    await page.close();
  });
});
