import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BACKEND_ENTRY, BackendProcess, tempDir } from '../helpers/backend-process.js';
import { httpsJson, issue, makeCa, servedFingerprint } from '../helpers/tls-kit.js';
import { openWs } from '../helpers/ws-client.js';

const FINGERPRINT_LINE = /^tls fingerprint: (SHA256:(?:[0-9A-F]{2}:){31}[0-9A-F]{2})$/;

function run(args: string[]) {
  return spawnSync(process.execPath, [BACKEND_ENTRY, ...args], { encoding: 'utf8', timeout: 10_000 });
}

describe('TLS on the assistant listener', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });
  async function start(options: Parameters<typeof BackendProcess.start>[0]) {
    const proc = await BackendProcess.start(options);
    procs.push(proc);
    return proc;
  }

  it('-tls auto: HTTPS and WSS on one port, the logged fingerprint is the served one, kept across restarts', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const proc = await start({ dataDir, args: ['-tls', 'auto'] });
    assert.match(proc.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const logged = (await proc.waitForLine(FINGERPRINT_LINE))[1];
    assert.equal(await servedFingerprint(proc.port), logged, 'the log shows the certificate actually served');

    const tlsDir = path.join(dataDir, 'selfhost', 'tls');
    assert.equal(statSync(path.join(tlsDir, 'key.pem')).mode & 0o777, 0o600, 'key is 0600');
    assert.equal(statSync(tlsDir).mode & 0o777, 0o700);
    const ca = readFileSync(path.join(tlsDir, 'cert.pem'), 'utf8');
    assert.match(ca, /BEGIN CERTIFICATE/);

    // Trusting exactly that certificate verifies the connection (names include localhost and 127.0.0.1).
    const status = await httpsJson(proc.url, 'GET', '/api/pairing/status', { ca });
    assert.equal(status.status, 200);
    assert.equal(status.body.tls_fingerprint, logged);
    await assert.rejects(httpsJson(proc.url, 'GET', '/health'), /self-signed|self signed/, 'untrusted by default');
    const plain = await fetch(proc.url.replace('https:', 'http:') + '/health').catch((err: Error) => err);
    assert.ok(plain instanceof Error || plain.status >= 400, 'plain HTTP gets no API answer');

    const claim = await httpsJson(proc.url, 'POST', '/api/pairing/claim', { ca, body: { pairing_code: proc.pairingCode() } });
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    const credential = claim.body.credential as string;
    assert.equal((await httpsJson(proc.url, 'GET', '/api/config/providers', { ca, credential })).status, 200);
    const wss = await openWs(`${proc.url.replace('https:', 'wss:')}/ws?service_credential=${credential}`, {}, { ca });
    assert.equal((await wss.next((m) => m.type === 'hello')).node_id, claim.body.node_id);
    wss.socket.close();

    await proc.stop();
    const again = await start({ dataDir, args: ['-tls', 'auto'] });
    assert.equal((await again.waitForLine(FINGERPRINT_LINE))[1], logged, 'same certificate after a restart');
    assert.equal(await servedFingerprint(again.port), logged);
    assert.ok(!again.output().includes('generated a self-signed'), 'not regenerated');
    assert.equal((await httpsJson(again.url, 'GET', '/api/config/providers', { ca, credential })).status, 200);
  });

  it('-tls-cert/-tls-key: serves the operator certificate, verified against its CA by name', async () => {
    const dir = tempDir();
    const ca = await makeCa();
    const server = await issue(ca, 'server', ['localhost', '127.0.0.1']);
    writeFileSync(path.join(dir, 'server.pem'), `${server.cert}\n${ca.cert}\n`);
    writeFileSync(path.join(dir, 'server.key'), server.key, { mode: 0o600 });
    const proc = await start({
      dataDir: path.join(dir, 'data'),
      args: ['-tls-cert', path.join(dir, 'server.pem'), '-tls-key', path.join(dir, 'server.key')],
    });
    const logged = (await proc.waitForLine(FINGERPRINT_LINE))[1];
    assert.equal(await servedFingerprint(proc.port), logged);
    const health = await httpsJson(proc.url.replace('127.0.0.1', 'localhost'), 'GET', '/health', { ca: ca.cert });
    assert.deepEqual(health.body, { status: 'ok' });
    assert.equal((await httpsJson(proc.url, 'GET', '/api/pairing/status', { ca: ca.cert })).body.tls_fingerprint, logged);
  });

  it('-client-ca: a connection without a client certificate signed by that CA fails the handshake', async () => {
    const dir = tempDir();
    const clientCa = await makeCa('CN=gateway ca');
    const stranger = await makeCa('CN=stranger ca');
    const good = await issue(clientCa, 'client');
    const bad = await issue(stranger, 'client');
    writeFileSync(path.join(dir, 'clients.pem'), clientCa.cert);
    const proc = await start({ dataDir: path.join(dir, 'data'), args: ['-tls', 'auto', '-client-ca', path.join(dir, 'clients.pem')] });
    const ca = readFileSync(path.join(dir, 'data', 'selfhost', 'tls', 'cert.pem'), 'utf8');

    const ok = await httpsJson(proc.url, 'GET', '/health', { ca, cert: good.cert, key: good.key });
    assert.deepEqual(ok.body, { status: 'ok' });
    await assert.rejects(httpsJson(proc.url, 'GET', '/health', { ca }), 'no client certificate');
    await assert.rejects(httpsJson(proc.url, 'GET', '/health', { ca, cert: bad.cert, key: bad.key }), 'certificate from another CA');
    await assert.rejects(openWs(`${proc.url.replace('https:', 'wss:')}/ws`, {}, { ca }), 'WSS without a client certificate');
  });

  it('refuses plain HTTP off the loopback unless -allow-insecure-remote, and bad TLS flags, saying why', () => {
    const refused = run(['-host', '0.0.0.0', '-port', '0', '-data', path.join(tempDir(), 'data')]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /refusing to serve plain HTTP on the non-loopback address 0\.0\.0\.0/);
    assert.match(refused.stderr, /-tls auto/);
    assert.match(refused.stderr, /-allow-insecure-remote/);
    const cases: [string[], RegExp][] = [
      [['-tls', 'maybe'], /-tls: must be auto or off/],
      [['-tls-cert', 'a.pem'], /-tls-key is missing/],
      [['-tls', 'auto', '-tls-cert', 'a.pem', '-tls-key', 'b.pem'], /cannot be combined/],
      [['-client-ca', 'ca.pem'], /-client-ca needs TLS/],
      [['-allow-insecure-remote=maybe'], /must be true or false/],
    ];
    for (const [args, re] of cases) {
      const r = run(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, re, args.join(' '));
    }
  });

  it('a key that does not belong to the certificate, or an unreadable file, stops the start with the reason', async () => {
    const dir = tempDir();
    const ca = await makeCa();
    const a = await issue(ca, 'server', ['localhost']);
    const b = await issue(ca, 'server', ['localhost']);
    writeFileSync(path.join(dir, 'a.pem'), a.cert);
    writeFileSync(path.join(dir, 'b.key'), b.key);
    const mismatch = run([
      '-port',
      '0',
      '-swap-port',
      'off',
      '-data',
      path.join(dir, 'd1'),
      '-tls-cert',
      path.join(dir, 'a.pem'),
      '-tls-key',
      path.join(dir, 'b.key'),
    ]);
    assert.equal(mismatch.status, 1);
    assert.match(mismatch.stderr, /private key does not belong to the certificate/);
    const missing = run([
      '-port',
      '0',
      '-swap-port',
      'off',
      '-data',
      path.join(dir, 'd2'),
      '-tls-cert',
      path.join(dir, 'nope.pem'),
      '-tls-key',
      path.join(dir, 'b.key'),
    ]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /-tls-cert .*nope\.pem: cannot read the file \(ENOENT\)/);
  });
});
