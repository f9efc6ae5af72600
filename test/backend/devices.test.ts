import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { api, BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';

/** Fails instead of hanging when a socket that must close stays open. */
function within<T>(promise: Promise<T>, ms = 3000): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`still pending after ${ms} ms`)))]);
}

describe('devices: one credential each, invites, revocation', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });
  async function paired(env: NodeJS.ProcessEnv = {}) {
    const started = await startPaired({ env });
    procs.push(started.proc);
    return started;
  }
  async function join(url: string, credential: string, name: string, role?: 'owner') {
    const invite = await api(url, 'POST', '/api/selfhost/devices/invite', { credential, body: { name, role } });
    assert.equal(invite.status, 200, JSON.stringify(invite.body));
    const joined = await api(url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code, device_name: name } });
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    return joined.body as { credential: string; device_id: string; node_id: string };
  }
  const wsUrl = (proc: BackendProcess, credential: string) => `${proc.url.replace('http', 'ws')}/ws?service_credential=${credential}`;

  it('an existing single-credential data directory keeps working: the credential becomes the first device', async () => {
    const dataDir = path.join(tempDir(), 'data');
    mkdirSync(path.join(dataDir, 'selfhost'), { recursive: true, mode: 0o700 });
    const credential = 'svc_' + 'A'.repeat(43);
    const legacy = {
      node_id: '11111111-2222-3333-4444-555555555555',
      credential_sha256: createHash('sha256').update(credential).digest('hex'),
      paired_at: '2026-01-02T03:04:05.000Z',
      display_name: 'Old laptop',
      code_expires_at: null,
      code_failures: 0,
      recent_failures: [],
      consumed_bootstrap_sha256: [],
    };
    writeFileSync(path.join(dataDir, 'selfhost', 'pairing.json'), JSON.stringify(legacy), { mode: 0o600 });
    const proc = await BackendProcess.start({ dataDir });
    procs.push(proc);
    assert.equal(proc.pairingCode(), undefined, 'still paired: no code logged');
    const list = await api(proc.url, 'GET', '/api/selfhost/devices', { credential });
    assert.equal(list.status, 200);
    assert.equal(list.body.devices.length, 1);
    assert.deepEqual(
      { name: list.body.devices[0].name, paired_at: list.body.devices[0].paired_at, current: list.body.devices[0].current },
      { name: 'Old laptop', paired_at: legacy.paired_at, current: true },
    );
    const onDisk = JSON.parse(readFileSync(path.join(dataDir, 'selfhost', 'pairing.json'), 'utf8'));
    assert.equal(onDisk.node_id, legacy.node_id);
    assert.equal(onDisk.credential_sha256, undefined, 'moved into devices');
    assert.equal(onDisk.devices[0].credential_sha256, legacy.credential_sha256);
    assert.ok(!JSON.stringify(onDisk).includes(credential), 'never the credential itself');
  });

  it('invites: a second device joins with its own credential; wrong, reused and missing codes fail; claim stays 409', async () => {
    const { proc, credential } = await paired();
    const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential, body: { name: 'Phone' } });
    assert.equal(invite.status, 200);
    assert.match(invite.body.code, /^\d{6}$/);
    const ttl = Date.parse(invite.body.expires_at) - Date.now();
    assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000, `valid 10 minutes (${ttl} ms)`);
    assert.ok(!proc.output().includes(invite.body.code), 'the invite code is not logged');

    const wrong = invite.body.code === '000000' ? '111111' : '000000';
    const bad = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: wrong } });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, 'invalid_invite');
    const missing = await api(proc.url, 'POST', '/api/pairing/join', { body: { device_name: 'x' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.field, 'invite_code');
    const longName = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: wrong, device_name: 'x'.repeat(101) } });
    assert.equal(longName.status, 400);
    assert.match(longName.body.error.message, /device_name must be at most 100 characters/);

    const ok = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code } });
    assert.equal(ok.status, 200);
    assert.match(ok.body.credential, /^svc_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(ok.body.credential, credential);
    const reused = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code } });
    assert.equal(reused.status, 401, 'one-time');
    const claim = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: '123456' } });
    assert.equal(claim.status, 409, 'a second device never pairs through claim');

    const mine = await api(proc.url, 'GET', '/api/selfhost/devices', { credential });
    const theirs = await api(proc.url, 'GET', '/api/selfhost/devices', { credential: ok.body.credential });
    assert.deepEqual(
      mine.body.devices.map((d: { name: string; current: boolean }) => [d.name, d.current]),
      [
        ['First device', true],
        ['Phone', false],
      ],
    );
    assert.deepEqual(
      theirs.body.devices.map((d: { current: boolean }) => d.current),
      [false, true],
    );
    assert.equal(theirs.body.devices[1].id, ok.body.device_id);
    assert.ok(theirs.body.devices[1].last_seen_at, 'last seen recorded');
  });

  it('an invite expires (shortened for the test)', async () => {
    const { proc, credential } = await paired({ SERVICE_INVITE_TTL_MS: '800' });
    const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential, body: {} });
    await sleep(1000);
    const late = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code } });
    assert.equal(late.status, 401);
  });

  it('wrong invite codes spend the claim failure budget: 429 with Retry-After, even for the right code', async () => {
    const { proc, credential } = await paired({ SERVICE_PAIRING_FAILURE_WINDOW_MS: '60000' });
    const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential, body: {} });
    const wrong = invite.body.code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 10; i++) {
      assert.equal((await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: wrong } })).status, 401);
    }
    const throttled = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code } });
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
  });

  it('revoking a device stops its credential and closes its live WebSocket at once; others stay connected', async () => {
    const { proc, credential } = await paired();
    const phone = await join(proc.url, credential, 'Phone');
    const mySocket = await openWs(wsUrl(proc, credential));
    const phoneSocket = await openWs(wsUrl(proc, phone.credential));
    await phoneSocket.next((m) => m.type === 'hello');

    const started = Date.now();
    const revoked = await api(proc.url, 'DELETE', `/api/selfhost/devices/${phone.device_id}`, { credential });
    assert.equal(revoked.status, 204);
    const closed = await within(phoneSocket.closed);
    assert.equal(closed.code, 4001);
    assert.ok(Date.now() - started < 2000, 'closed at once');
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential: phone.credential })).status, 401);
    await assert.rejects(openWs(wsUrl(proc, phone.credential)), (err: { status?: number }) => err.status === 401);

    mySocket.socket.send(JSON.stringify({ type: 'ping' }));
    assert.deepEqual(await mySocket.next((m) => m.type === 'pong'), { type: 'pong' }, 'my socket is still open');
    const unknown = await api(proc.url, 'DELETE', '/api/selfhost/devices/nope', { credential });
    assert.equal(unknown.status, 404);
    mySocket.socket.close();
  });

  it('rotation renews only the calling device; reset revokes every device and logs a new code', async () => {
    const { proc, credential } = await paired();
    // An owner: the reset below is an owner's (DESIGN 16).
    const phone = await join(proc.url, credential, 'Phone', 'owner');
    const phoneSocket = await openWs(wsUrl(proc, phone.credential));
    const mySocket = await openWs(wsUrl(proc, credential));

    const rotated = await api(proc.url, 'POST', '/api/selfhost/credential/rotate', { credential: phone.credential });
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.device_id, phone.device_id);
    assert.equal((await within(phoneSocket.closed)).code, 4001);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential: phone.credential })).status, 401);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential: rotated.body.credential })).status, 200);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential })).status, 200, 'the other device is untouched');
    mySocket.socket.send(JSON.stringify({ type: 'ping' }));
    await mySocket.next((m) => m.type === 'pong');

    const pending = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential, body: {} });
    const from = proc.lines.length;
    assert.equal((await api(proc.url, 'POST', '/api/selfhost/pairing/reset', { credential: rotated.body.credential })).status, 200);
    assert.equal((await within(mySocket.closed)).code, 4001);
    for (const c of [credential, rotated.body.credential]) {
      assert.equal((await api(proc.url, 'GET', '/api/selfhost/devices', { credential: c })).status, 401);
    }
    await proc.waitForLine(/^pairing code: \d{6}/, 5000, from);
    assert.equal((await api(proc.url, 'GET', '/api/pairing/status')).body.bound, false);
    const stale = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: pending.body.code } });
    assert.equal(stale.status, 401, 'reset voids pending invites');
  });
});
