import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUILD_OUTPUT } from '../../app/build-layout.js';
import { pinnedRequest, type Pin } from '../../app/remote/cert-pinning.js';
import { generateSelfSigned } from '../../backend/selfhost/tls-certificate.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { MainHarness, ROOT, type Message } from './main-harness.js';

/**
 * "Connect to another backend…" through the built main bundle (stand-in electron, with a keyring):
 * the menu items, the remote:* channels against a real `-tls auto` backend, Chromium's certificate
 * check answered from the pin, the credential routed to the remote's slot, and the CSP served.
 */
describe(
  'the built main process connecting to a remote backend',
  { skip: !existsSync(path.join(ROOT, BUILD_OUTPUT.main)) && 'npm run build:app first', timeout: 120_000 },
  () => {
    const home = tempDir('svc-main-remote-');
    let harness: MainHarness;
    let remote: BackendProcess;
    let fingerprint: string;
    let origin: string;
    let firstCredential: string;
    const invoke = (channel: string, payload?: unknown) =>
      harness.command({ cmd: 'invoke', channel, sender: 'app://renderer/', payload }, 'invoked').then((m) => m.value);
    const since = () => harness.messages.length;
    const next = (match: (m: Message) => boolean, from: number) => harness.next(match, 15_000, from);

    before(async () => {
      remote = await BackendProcess.start({ args: ['-tls', 'auto'] });
      fingerprint = (await remote.waitForLine(/^tls fingerprint: (SHA256:[0-9A-F:]+)$/))[1];
      origin = `https://127.0.0.1:${remote.port}`;
      await remote.waitForLine(/^pairing code: \d{6}/);
      const pin: Pin = { origin, fingerprint, pinned_at: '' };
      firstCredential = (
        await pinnedRequest<{ credential: string }>(pin, 'POST', '/api/pairing/claim', { body: { pairing_code: remote.pairingCode() } })
      ).body.credential;
      harness = new MainHarness(home, { FAKE_ELECTRON_KEYRING: '1' });
      await harness.ready();
    });
    after(async () => {
      harness?.kill();
      await remote?.stop();
      remote?.cleanup();
      rmSync(home, { recursive: true, force: true });
    });

    it('has the menu items and opens the flow in the renderer', async () => {
      const menu = await harness.next((m) => m.type === 'menu');
      assert.ok(menu.labels.includes('Connect to Another Backend…'));
      assert.ok(menu.labels.includes('Use the Local Backend'));
      await harness.next((m) => m.type === 'verify-proc');
      const from = since();
      await harness.command({ cmd: 'click', label: 'Connect to Another Backend…' }, 'clicked');
      await next((m) => m.type === 'send' && m.channel === 'menu:connect-remote', from);
      assert.deepEqual((await invoke('remote:state')).value, { active: { kind: 'local' }, remotes: [] });
    });

    it('probes, pairs with an invite, switches (reload), pins for Chromium and routes the credential to the remote slot', async () => {
      const bad = await invoke('remote:probe', { url: 'http://192.0.2.1:8080' });
      assert.equal(bad.value.ok, false);
      assert.equal(bad.value.reason, 'insecure');
      const invalid = await invoke('remote:pair', { origin, fingerprint: 'abc', code: '12' });
      assert.equal(invalid.error.code, 'invalid_payload');
      assert.match(invalid.error.message, /fingerprint: must be the fingerprint the probe returned/);

      const probed = (await invoke('remote:probe', { url: origin })).value;
      assert.equal(probed.probe.fingerprint, fingerprint);
      const invite = await pinnedRequest<{ code: string }>({ origin, fingerprint, pinned_at: '' }, 'POST', '/api/selfhost/devices/invite', {
        credential: firstCredential,
        body: {},
      });
      const paired = (await invoke('remote:pair', { origin, fingerprint, code: invite.body.code })).value;
      assert.equal(paired.ok, true, JSON.stringify(paired));
      assert.equal(paired.remote.fingerprint, fingerprint, 'pinned at pairing');

      const from = since();
      assert.equal((await invoke('remote:use', { target: origin })).ok, true);
      await next((m) => m.type === 'reload', from);
      const state = (await invoke('remote:state')).value;
      assert.equal(state.active.kind, 'remote');
      assert.equal(state.active.check, 'ok');
      assert.equal(state.active.remote.origin, origin);

      // Chromium's Local Network Access: LAN addresses only while a remote is in use, only for the renderer.
      const lan = await harness.command({ cmd: 'permission', permission: 'local-network', url: 'app://renderer/' }, 'permission');
      assert.deepEqual([lan.granted, lan.checked], [true, true]);

      // The renderer's credential calls now act on the remote's slot; it works on the remote.
      const credential = (await invoke('credential:read')).value;
      assert.match(credential, /^svc_/);
      assert.notEqual(credential, firstCredential);
      assert.equal(
        (await pinnedRequest({ origin, fingerprint, pinned_at: '' }, 'GET', '/api/config/providers', { credential })).status,
        200,
      );
      const stored = readFileSync(path.join(home, 'userData', 'remote-backends.json'), 'utf8');
      assert.ok(!stored.includes(credential), 'stored through safeStorage, not in clear');

      // Chromium's certificate check: the pinned certificate passes, another one on that host is refused and explained.
      const servedPem = readFileSync(path.join(remote.dataDir, 'selfhost', 'tls', 'cert.pem'), 'utf8');
      assert.equal((await harness.command({ cmd: 'verify', hostname: '127.0.0.1', pem: servedPem }, 'verified')).verdict, 0);
      const other = await generateSelfSigned(['127.0.0.1']);
      const before = since();
      assert.equal((await harness.command({ cmd: 'verify', hostname: '127.0.0.1', pem: other.cert }, 'verified')).verdict, -2);
      const refused = await next((m) => m.type === 'send' && m.channel === 'remote:refused', before);
      assert.equal(refused.payload.pinned, fingerprint);
      assert.notEqual(refused.payload.presented, fingerprint);
      assert.equal((await harness.command({ cmd: 'verify', hostname: 'example.org', pem: other.cert }, 'verified')).verdict, -3);
    });

    it('serves the renderer with a CSP that allows this remote only, header and <meta>', async (t) => {
      if (!existsSync(path.join(ROOT, BUILD_OUTPUT.renderer, 'index.html'))) return t.skip('renderer not built');
      const page = await harness.command({ cmd: 'renderer-fetch', url: 'app://renderer/' }, 'renderer-fetched');
      assert.equal(page.status, 200);
      const sources = `${origin} wss://127.0.0.1:${remote.port}`;
      assert.ok(
        page.csp.includes(`connect-src 'self' http://127.0.0.1:* ws://127.0.0.1:* http://localhost:* ws://localhost:* ${sources};`),
      );
      assert.ok(page.body.includes(sources), 'the <meta> names the same remote');
    });

    it('"Use the Local Backend" switches back; the local slot and the remote pin stay', async () => {
      const from = since();
      await harness.command({ cmd: 'click', label: 'Use the Local Backend' }, 'clicked');
      await next((m) => m.type === 'reload', from);
      const state = (await invoke('remote:state')).value;
      assert.equal(state.active.kind, 'local');
      assert.equal(state.remotes[0].origin, origin);
      assert.equal((await invoke('credential:read')).value, null, 'the local backend has its own (empty) slot');
      const lan = await harness.command({ cmd: 'permission', permission: 'local-network', url: 'app://renderer/' }, 'permission');
      assert.deepEqual([lan.granted, lan.checked], [false, false], 'no LAN access on the local backend');
      if (existsSync(path.join(ROOT, BUILD_OUTPUT.renderer, 'index.html'))) {
        const page = await harness.command({ cmd: 'renderer-fetch', url: 'app://renderer/' }, 'renderer-fetched');
        assert.ok(!String(page.csp).includes(origin), 'the remote leaves the CSP');
      }
      const forgotten = (await invoke('remote:forget', { origin })).value;
      assert.deepEqual(forgotten.remotes, []);
    });
  },
);
