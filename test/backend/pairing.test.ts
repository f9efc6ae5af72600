import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { api, BackendProcess, startPaired } from '../helpers/backend-process.js';

const CODE_LINE = /^pairing code: (\d{6}) \(expires (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\)$/;

function wrongCode(right: string | undefined): string {
  return right === '000000' ? '111111' : '000000';
}

describe('pairing', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });
  async function start(options: Parameters<typeof BackendProcess.start>[0] = {}) {
    const proc = await BackendProcess.start(options);
    procs.push(proc);
    return proc;
  }

  it('walks the spec state table: 400, 401, 200, then 409 for any claim', async () => {
    const proc = await start();
    const m = await proc.waitForLine(CODE_LINE);
    const expires = Date.parse(m[2]);
    assert.ok(Math.abs(expires - Date.now() - 24 * 3600_000) < 60_000, 'code valid 24 h');

    const status = await api(proc.url, 'GET', '/api/pairing/status');
    assert.equal(status.status, 200);
    assert.deepEqual(Object.keys(status.body).sort(), [
      'bootstrap_mode',
      'bound',
      'display_name',
      'node_id',
      'pairing_expires_at',
      'pairing_required',
    ]);
    assert.equal(status.body.bound, false);
    assert.equal(status.body.pairing_required, true);
    assert.equal(status.body.bootstrap_mode, 'local');
    assert.equal(Date.parse(status.body.pairing_expires_at), expires);
    assert.ok(!JSON.stringify(status.body).includes(m[1]), 'status never carries the code');

    const neither = await api(proc.url, 'POST', '/api/pairing/claim', { body: {} });
    assert.equal(neither.status, 400);
    assert.equal(neither.body.error.code, 'missing_credential_field');

    const wrong = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: wrongCode(m[1]) } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_pairing');
    const badSecret = await api(proc.url, 'POST', '/api/pairing/claim', { body: { bootstrap_secret: 'nope' } });
    assert.equal(badSecret.status, 401);
    assert.deepEqual(badSecret.body, wrong.body, 'wrong code and wrong secret look the same');

    const ok = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: m[1], display_name: 'Test client' } });
    assert.equal(ok.status, 200);
    assert.match(ok.body.credential, /^svc_[A-Za-z0-9_-]{43}$/);
    assert.match(ok.body.node_id, /^[0-9a-f-]{36}$/);

    for (const body of [{ pairing_code: m[1] }, {}, { bootstrap_secret: 'x' }, { pairing_code: 'garbage' }]) {
      const again = await api(proc.url, 'POST', '/api/pairing/claim', { body });
      assert.equal(again.status, 409, JSON.stringify(body));
      assert.equal(again.body.error.code, 'already_paired');
    }
    const after = await api(proc.url, 'GET', '/api/pairing/status');
    assert.equal(after.body.bound, true);
    assert.equal(after.body.pairing_required, false);
    assert.equal(after.body.display_name, 'Test client');
  });

  it('accepts the credential in both headers and refuses anything else with the envelope', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential })).status, 200);
    const viaHeader = await api(proc.url, 'GET', '/api/config/providers', { headers: { 'X-Service-Credential': credential } });
    assert.equal(viaHeader.status, 200);
    const variants: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${credential}x` },
      { authorization: credential },
      { 'x-service-credential': 'svc_wrong' },
    ];
    for (const headers of variants) {
      for (const p of ['/api/config/providers', '/api/logs', '/api/anything']) {
        const r = await api(proc.url, 'GET', p, { headers });
        assert.equal(r.status, 401, `${p} ${JSON.stringify(headers)}`);
        assert.equal(r.body.error.code, 'unauthorized');
      }
    }
    for (const p of ['/health', '/api/version', '/api/pairing/status']) {
      assert.equal((await api(proc.url, 'GET', p)).status, 200, `${p} needs no credential`);
    }
  });

  it('keeps node_id and the credential across a restart and logs no code once paired', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const status = await api(proc.url, 'GET', '/api/pairing/status');
    await proc.stop();
    const pairingFile = readFileSync(path.join(proc.dataDir, 'selfhost', 'pairing.json'), 'utf8');
    assert.ok(!pairingFile.includes(credential), 'only the digest is stored');
    const again = await start({ dataDir: proc.dataDir });
    assert.equal((await api(again.url, 'GET', '/api/config/providers', { credential })).status, 200);
    assert.equal((await api(again.url, 'GET', '/api/pairing/status')).body.bound, true);
    assert.equal(status.body.bound, true);
    assert.ok(!again.lines.some((l) => /pairing code/.test(l.line)), 'no code line once paired');
    const claim = await api(again.url, 'POST', '/api/pairing/claim', { body: { pairing_code: '123456' } });
    assert.equal(claim.status, 409);
  });

  it('renews an expired code with a new log line and refuses the old one', async () => {
    const proc = await start({ env: { SERVICE_PAIRING_CODE_TTL_MS: '1500' } });
    const first = await proc.waitForLine(CODE_LINE);
    const second = await proc.waitForLine(/^pairing code: (\d{6}) \(expires/, 5000, proc.lines.length);
    const status = await api(proc.url, 'GET', '/api/pairing/status');
    assert.ok(Date.parse(status.body.pairing_expires_at) > Date.parse(first[2]));
    if (first[1] !== second[1]) {
      const old = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: first[1] } });
      assert.equal(old.status, 401);
    }
    const ok = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: second[1] } });
    assert.equal(ok.status, 200);
  });

  it('rotates the code after 5 failures against it', async () => {
    const proc = await start();
    const first = await proc.waitForLine(CODE_LINE);
    const linesBefore = proc.lines.length;
    for (let i = 0; i < 5; i++) {
      const r = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: wrongCode(first[1]) } });
      assert.equal(r.status, 401);
    }
    const rotated = await proc.waitForLine(CODE_LINE, 2000, linesBefore);
    assert.ok(proc.lines.slice(linesBefore).some((l) => /rotated after repeated failures/.test(l.line)));
    if (rotated[1] !== first[1]) {
      assert.equal((await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: first[1] } })).status, 401);
    }
    // 6 failures so far (5 + maybe 1): still under the global budget of 10.
    assert.equal((await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: rotated[1] } })).status, 200);
  });

  it('answers 429 with Retry-After past 10 failures, even for the right code, until the window passes', async () => {
    const proc = await start({ env: { SERVICE_PAIRING_FAILURE_WINDOW_MS: '3000' } });
    await proc.waitForLine(CODE_LINE);
    const results: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: wrongCode(proc.pairingCode()) } });
      results.push(r.status);
      if (r.status === 429) {
        assert.match(r.headers.get('retry-after') ?? '', /^[1-3]$/);
        assert.equal(r.body.error.code, 'too_many_requests');
      }
    }
    assert.deepEqual(results, [...Array(10).fill(401), 429, 429]);
    const blocked = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: proc.pairingCode() } });
    assert.equal(blocked.status, 429, 'throttled claims are not even checked');
    const wait = Number(blocked.headers.get('retry-after'));
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    const ok = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: proc.pairingCode() } });
    assert.equal(ok.status, 200);
  });

  it('gives exactly one 200 among concurrent correct claims, the rest 409', async () => {
    const proc = await start();
    const m = await proc.waitForLine(CODE_LINE);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: m[1] } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    const winner = results.find((r) => r.status === 200)!;
    assert.equal((await api(proc.url, 'GET', '/api/logs', { credential: winner.body.credential })).status, 200);
  });

  it('accepts a bootstrap secret from the environment once, also across a restart', async () => {
    const env = { SERVICE_BOOTSTRAP_SECRET: 'managed-secret-0123456789' };
    const proc = await start({ env });
    assert.equal((await api(proc.url, 'GET', '/api/pairing/status')).body.bootstrap_mode, 'managed');
    const ok = await api(proc.url, 'POST', '/api/pairing/claim', { body: { bootstrap_secret: env.SERVICE_BOOTSTRAP_SECRET } });
    assert.equal(ok.status, 200);
    await api(proc.url, 'POST', '/api/selfhost/pairing/reset', { credential: ok.body.credential });
    const reused = await api(proc.url, 'POST', '/api/pairing/claim', { body: { bootstrap_secret: env.SERVICE_BOOTSTRAP_SECRET } });
    assert.equal(reused.status, 401);
    await proc.stop();
    const again = await start({ dataDir: proc.dataDir, env });
    assert.equal((await api(again.url, 'GET', '/api/pairing/status')).body.bootstrap_mode, 'local');
    const afterRestart = await api(again.url, 'POST', '/api/pairing/claim', { body: { bootstrap_secret: env.SERVICE_BOOTSTRAP_SECRET } });
    assert.equal(afterRestart.status, 401);
    assert.ok(!readFileSync(path.join(proc.dataDir, 'selfhost', 'pairing.json'), 'utf8').includes(env.SERVICE_BOOTSTRAP_SECRET));
  });

  it('accepts a bootstrap secret from selfhost/bootstrap_secret once and removes the file', async () => {
    const first = await start();
    await first.stop();
    const secretFile = path.join(first.dataDir, 'selfhost', 'bootstrap_secret');
    writeFileSync(secretFile, 'file-secret-abcdef\n', { mode: 0o600 });
    const proc = await start({ dataDir: first.dataDir });
    assert.equal((await api(proc.url, 'GET', '/api/pairing/status')).body.bootstrap_mode, 'managed');
    const ok = await api(proc.url, 'POST', '/api/pairing/claim', { body: { bootstrap_secret: 'file-secret-abcdef' } });
    assert.equal(ok.status, 200);
    assert.equal(existsSync(secretFile), false);
  });

  it('rotates the credential: the old one stops at once, the new one works', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const rotated = await api(proc.url, 'POST', '/api/selfhost/credential/rotate', { credential });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.credential, credential);
    assert.equal((await api(proc.url, 'GET', '/api/logs', { credential })).status, 401);
    assert.equal((await api(proc.url, 'GET', '/api/logs', { credential: rotated.body.credential })).status, 200);
  });

  it('resets pairing through the API: credential refused, a new code logged and accepted', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const before = proc.lines.length;
    const reset = await api(proc.url, 'POST', '/api/selfhost/pairing/reset', { credential });
    assert.equal(reset.status, 200);
    assert.equal(reset.body.bound, false);
    const m = await proc.waitForLine(CODE_LINE, 2000, before);
    assert.equal((await api(proc.url, 'GET', '/api/logs', { credential })).status, 401);
    assert.equal((await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: m[1] } })).status, 200);
  });
});
