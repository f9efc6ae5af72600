import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENTS, INVOKE, REQUEST_SCHEMAS } from '../../app/ipc/contract.js';
import { handleRequest, isTrustedSenderUrl, parseRequest } from '../../app/ipc/validate.js';

const RENDERER = 'app://renderer/index.html';
const CREDENTIAL = `svc_${'A'.repeat(43)}`;

describe('IPC contract', () => {
  it('has a schema for every request channel and prefixed channel names', () => {
    assert.deepEqual(Object.keys(REQUEST_SCHEMAS).sort(), Object.values(INVOKE).sort());
    for (const channel of [...Object.values(INVOKE), ...Object.values(EVENTS)]) {
      assert.match(channel, /^(backend|pairing|folders|credential|menu|theme|desktop|app|remote|preview):[a-z-]+$/);
    }
  });
});

describe('IPC validation in main', () => {
  it('accepts only the renderer served over app://renderer as sender', () => {
    assert.equal(isTrustedSenderUrl(RENDERER), true);
    assert.equal(isTrustedSenderUrl('app://renderer/#/logs'), true);
    const others = ['https://example.com/', 'file:///tmp/index.html', 'app://other/', 'http://127.0.0.1:8080/', '', undefined];
    // The artifact preview page runs code a model wrote: it has no preload, and is refused here too.
    for (const url of [...others, 'app://renderer/preview.html', 'app://renderer/preview.html#x']) {
      assert.equal(isTrustedSenderUrl(url), false, String(url));
    }
  });

  it('refuses a request from another frame before running the handler', async () => {
    let ran = false;
    const result = await handleRequest('backend:restart', 'https://evil.example/', undefined, () => {
      ran = true;
      return null;
    });
    assert.equal(ran, false);
    assert.deepEqual(result.ok ? null : result.error.code, 'untrusted_sender');
  });

  it('names the field and the rule for a bad payload', async () => {
    const bad = await handleRequest('folders:open', RENDERER, { folder: '/etc' }, () => null);
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.code, 'invalid_payload');
      assert.equal(bad.error.message, 'folders:open: folder: must be "data" or "logs"');
    }
    const cred = parseRequest('credential:store', { credential: 'hunter2' });
    assert.equal(
      cred.ok ? '' : cred.error.message,
      'credential:store: credential: must be a service credential (svc_ and 43 base64url characters)',
    );
    const extra = parseRequest('folders:open', { folder: 'data', path: '/etc' });
    assert.equal(extra.ok, false, 'unknown keys are refused');
    const since = parseRequest('backend:logs', { since: -1 });
    assert.match(since.ok ? '' : since.error.message, /since: must be an integer >= 0/);
    const none = parseRequest('backend:restart', { now: true });
    assert.match(none.ok ? '' : none.error.message, /payload: takes no payload/);
  });

  it('checks the remote backend channels: an origin, the probed fingerprint, a 6-digit code', () => {
    const fp = `SHA256:${'AB:'.repeat(31)}AB`;
    const message = (channel: Parameters<typeof parseRequest>[0], payload: unknown) => {
      const r = parseRequest(channel, payload);
      return r.ok ? 'ok' : r.error.message;
    };
    assert.equal(message('remote:probe', { url: 'https://nas.local:8443' }), 'ok');
    assert.equal(message('remote:probe', { url: 'http://192.168.1.2:8080', allow_insecure: true }), 'ok');
    assert.equal(message('remote:probe', { url: '' }), 'remote:probe: url: must not be empty');
    assert.equal(message('remote:probe', { url: 'x', allow_insecure: 'yes' }), 'remote:probe: allow_insecure: must be true or false');
    assert.equal(message('remote:pair', { origin: 'https://nas.local:8443', fingerprint: fp, code: '123456' }), 'ok');
    assert.equal(
      message('remote:pair', { origin: 'http://127.0.0.1:8080', fingerprint: null, code: '123456', device_name: 'Laptop' }),
      'ok',
    );
    assert.equal(
      message('remote:pair', { origin: 'https://nas.local:8443/path', fingerprint: fp, code: '123456' }),
      'remote:pair: origin: must be an origin (https://host:port)',
    );
    assert.match(
      message('remote:pair', { origin: 'https://h:1', fingerprint: fp.toLowerCase(), code: '123456' }),
      /fingerprint: must be the fingerprint/,
    );
    assert.equal(message('remote:pair', { origin: 'https://h:1', fingerprint: fp, code: '12345a' }), 'remote:pair: code: must be 6 digits');
    assert.equal(
      message('remote:pair', { origin: 'https://h:1', fingerprint: fp, code: '123456', credential: 'x' }).startsWith(
        'remote:pair: payload',
      ),
      true,
    );
    assert.equal(message('remote:use', { target: 'local' }), 'ok');
    assert.equal(message('remote:use', { target: 'https://nas.local:8443' }), 'ok');
    assert.match(message('remote:use', { target: 'file:///etc' }), /target: must be "local" or a paired origin/);
    assert.match(message('remote:forget', { origin: 'local' }), /origin: must be an origin/);
    assert.match(message('remote:state', { x: 1 }), /takes no payload/);
  });

  it('passes valid payloads through and turns a thrown error into {ok:false}', async () => {
    assert.deepEqual(
      await handleRequest('backend:logs', RENDERER, { since: 5 }, (p) => [
        { seq: (p?.since ?? 0) + 1, time: 0, stream: 'stdout', line: 'x' },
      ]),
      {
        ok: true,
        value: [{ seq: 6, time: 0, stream: 'stdout', line: 'x' }],
      },
    );
    assert.deepEqual(await handleRequest('backend:logs', RENDERER, undefined, () => []), { ok: true, value: [] });
    assert.deepEqual(await handleRequest('credential:store', RENDERER, { credential: CREDENTIAL }, () => null), { ok: true, value: null });
    assert.deepEqual(
      await handleRequest('credential:read', RENDERER, undefined, () => {
        throw new Error('encryption is not available');
      }),
      { ok: false, error: { code: 'failed', message: 'credential:read: encryption is not available' } },
    );
  });
});
