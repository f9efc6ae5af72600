import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, BACKEND_ENTRY, startPaired, tempDir, type BackendProcess } from '../helpers/backend-process.js';

const KEY = 'sk-proxy-test-key-1234';
const dir = tempDir('svc-ca-');
const certFile = path.join(dir, 'proxy-root.pem');
let server: https.Server;
let base = '';
const procs: BackendProcess[] = [];

function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version']).status === 0;
}

/** A model provider behind "a TLS-inspecting proxy": HTTPS with a certificate no public root signed. */
before(async () => {
  if (!hasOpenssl()) return;
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=Test Proxy Root',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-keyout',
    path.join(dir, 'key.pem'),
    '-out',
    certFile,
  ]);
  server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(certFile) }, (req, res) => {
    const ok = req.url === '/v1/models' && req.headers.authorization === `Bearer ${KEY}`;
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { object: 'list', data: [{ id: 'proxied-model' }] } : { error: { message: 'no' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  server?.closeAllConnections();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function providerTest(args: string[]): Promise<{ ok: boolean; models?: string[]; error: { message: string } | null }> {
  // As in the desktop app, where the NODE_OPTIONS fuse makes Electron ignore NODE_EXTRA_CA_CERTS.
  const { proc, credential } = await startPaired({ args, env: { NODE_EXTRA_CA_CERTS: '' } });
  procs.push(proc);
  const created = await api(proc.url, 'POST', '/api/config/providers', {
    credential,
    body: { id: 'proxied', name: 'Proxied', type: 'compat', base_url: base, api_key: KEY, models: [{ id: 'm' }] },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const res = await api(proc.url, 'POST', '/api/config/providers/proxied/test', { credential, body: {} });
  assert.equal(res.status, 200);
  return res.body;
}

describe('-ca-certs: extra CA certificates for outgoing HTTPS', { skip: !hasOpenssl() && 'openssl is not installed' }, () => {
  it('without it, a provider behind the proxy fails with a certificate error', async () => {
    const result = await providerTest([]);
    assert.equal(result.ok, false);
    assert.match(JSON.stringify(result.error), /"code":"tls".*SELF_SIGNED_CERT/);
  });

  it('with it, the backend trusts the proxy root for fetch and reaches the provider', async () => {
    const result = await providerTest(['-ca-certs', certFile]);
    assert.deepEqual([result.ok, result.models], [true, ['proxied-model']]);
    const proc = procs.at(-1)!;
    assert.ok(proc.lines.some((l) => l.line === `trusting 1 extra CA certificate(s) from ${certFile} for outgoing HTTPS`));
  });

  it('a missing or non-PEM file stops the start with a message naming the flag', () => {
    const notPem = path.join(dir, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    for (const [file, why] of [
      [path.join(dir, 'missing.pem'), /cannot read the file \(ENOENT\)/],
      [notPem, /no PEM certificate/],
    ] as const) {
      const r = spawnSync(
        process.execPath,
        [BACKEND_ENTRY, '-port', '0', '-swap-port', 'off', '-data', path.join(dir, 'data'), '-ca-certs', file],
        {
          encoding: 'utf8',
          timeout: 10_000,
        },
      );
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`^error: -ca-certs ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      assert.match(r.stderr, why);
    }
  });
});
