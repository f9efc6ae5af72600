import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, BackendProcess, rawRequest, startPaired } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';

describe('browser-facing defences', () => {
  let proc: BackendProcess;
  let credential: string;
  before(async () => {
    ({ proc, credential } = await startPaired({ args: ['-allow-origin', 'http://localhost:5173'] }));
  });
  after(async () => {
    await proc.stop();
  });

  it('refuses Host values other than the loopback names (DNS rebinding) with 403', async () => {
    for (const host of ['evil.com', 'localhost.evil.com', '127.0.0.1.nip.io', '', `evil.com:${proc.port}`]) {
      const r = await rawRequest(proc.port, { path: '/health', headers: { host } });
      assert.equal(r.status, 403, `Host: ${host}`);
      assert.equal(r.json.error.code, 'forbidden_host');
    }
    for (const host of [
      `localhost:${proc.port}`,
      `127.0.0.1:${proc.port}`,
      `[::1]:${proc.port}`,
      `app.localhost:${proc.port}`,
      '127.1.2.3',
    ]) {
      const r = await rawRequest(proc.port, { path: '/health', headers: { host } });
      assert.equal(r.status, 200, `Host: ${host}`);
    }
  });

  it('refuses foreign and null Origins; answers CORS only for allowed origins, never *', async () => {
    const host = `127.0.0.1:${proc.port}`;
    for (const origin of [
      'https://evil.com',
      'null',
      'http://localhost.evil.com',
      `http://localhost:${proc.port}.evil.com`,
      'http://localhost:51730',
    ]) {
      const r = await rawRequest(proc.port, { path: '/api/pairing/status', headers: { host, origin } });
      assert.equal(r.status, 403, `Origin: ${origin}`);
      assert.equal(r.json.error.code, 'forbidden_origin');
      assert.equal(r.headers['access-control-allow-origin'], undefined);
    }
    for (const origin of [`http://localhost:${proc.port}`, `http://127.0.0.1:${proc.port}`, 'app://renderer', 'http://localhost:5173']) {
      const r = await rawRequest(proc.port, { path: '/api/pairing/status', headers: { host, origin } });
      assert.equal(r.status, 200, `Origin: ${origin}`);
      assert.equal(r.headers['access-control-allow-origin'], origin);
      const pre = await rawRequest(proc.port, {
        method: 'OPTIONS',
        path: '/api/config/providers',
        headers: { host, origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers['access-control-allow-origin'], origin);
      assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/);
      // Every method the API uses: renaming a chat (PATCH) from the desktop app's origin needs its preflight.
      const methods = String(pre.headers['access-control-allow-methods']).split(/,\s*/);
      for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(methods.includes(m), `${m} allowed for ${origin}`);
    }
  });

  it('refuses WebSocket upgrades from foreign Hosts and Origins even with the credential', async () => {
    const url = `ws://127.0.0.1:${proc.port}/ws?service_credential=${credential}`;
    await assert.rejects(openWs(url, { origin: 'https://evil.com' }), (e: { status?: number }) => e.status === 403);
    await assert.rejects(openWs(url, { origin: 'null' }), (e: { status?: number }) => e.status === 403);
    await assert.rejects(openWs(url, { host: 'evil.com' }), (e: { status?: number }) => e.status === 403);
    const ok = await openWs(url, { origin: `http://localhost:${proc.port}` });
    assert.equal((await ok.next()).type, 'hello');
    ok.socket.close();
  });

  it('answers cross-site simple POSTs with 415 and no side effect', async () => {
    const code = proc.pairingCode();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await rawRequest(proc.port, {
        method: 'POST',
        path: '/api/selfhost/credential/rotate',
        headers: { 'content-type': type, authorization: `Bearer ${credential}` },
        body: '{"x":1}',
      });
      assert.equal(r.status, 415, type);
      assert.equal(r.json.error.code, 'unsupported_media_type');
    }
    const claim = await rawRequest(proc.port, {
      method: 'POST',
      path: '/api/pairing/claim',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ pairing_code: code }),
    });
    assert.equal(claim.status, 415);
    assert.equal((await api(proc.url, 'GET', '/api/logs', { credential })).status, 200, 'credential not rotated');
  });

  it('limits bodies: 4 KiB on the claim, 1 MiB elsewhere (413), malformed JSON is a 400', async () => {
    const big = await api(proc.url, 'POST', '/api/pairing/claim', {
      rawBody: JSON.stringify({ pairing_code: '1'.repeat(5000) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'payload_too_large');
    const huge = await api(proc.url, 'POST', '/api/selfhost/credential/rotate', {
      rawBody: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
      credential,
    });
    assert.equal(huge.status, 413);
    const bad = await api(proc.url, 'POST', '/api/pairing/claim', {
      rawBody: '{"pairing_code":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_json');
  });

  it('answers unknown paths with the 404 envelope', async () => {
    const r = await api(proc.url, 'GET', '/api/nope', { credential });
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'not_found');
  });
});
