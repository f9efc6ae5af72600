import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pinnedRequest, type Pin } from '../../app/remote/cert-pinning.js';
import { CredentialSlots, LocalCredentialFile } from '../../app/remote/credential-slots.js';
import { RemoteBackends } from '../../app/remote/remote-backends.js';
import { RemoteBook } from '../../app/remote/remote-book.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { testCipher } from '../helpers/test-cipher.js';

const FINGERPRINT = /^tls fingerprint: (SHA256:[0-9A-F:]+)$/;

async function startTls(dataDir?: string, port?: number) {
  const proc = await BackendProcess.start({ dataDir, args: ['-tls', 'auto', ...(port ? ['-port', String(port)] : [])] });
  const fingerprint = (await proc.waitForLine(FINGERPRINT))[1];
  return { proc, fingerprint, origin: `https://127.0.0.1:${proc.port}` };
}

/** The first device (someone at the backend's machine) pairs with the logged code and creates an invite. */
async function inviteFrom(pin: Pin, credential: string): Promise<string> {
  const reply = await pinnedRequest<{ code: string }>(pin, 'POST', '/api/selfhost/devices/invite', { credential, body: {} });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.code;
}

describe('connect to another backend (real backend with -tls auto)', { timeout: 120_000 }, () => {
  let backend: Awaited<ReturnType<typeof startTls>>;
  let firstCredential: string;
  let pin: Pin;
  const folder = tempDir('svc-remotes-');
  const bookFile = path.join(folder, 'remote-backends.json');
  const cipher = testCipher();

  before(async () => {
    backend = await startTls();
    pin = { origin: backend.origin, fingerprint: backend.fingerprint, pinned_at: '' };
    await backend.proc.waitForLine(/^pairing code: \d{6}/);
    const claim = await pinnedRequest<{ credential: string }>(pin, 'POST', '/api/pairing/claim', {
      body: { pairing_code: backend.proc.pairingCode(), display_name: 'Server console' },
    });
    firstCredential = claim.body.credential;
  });
  after(async () => {
    await backend?.proc.stop();
    backend?.proc.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  it('probes, pairs with an invite over the compared certificate, stores the credential encrypted, and switches', async () => {
    const remotes = new RemoteBackends(await RemoteBook.open(bookFile, cipher), 'Desktop app (test)');
    const probed = await remotes.probe(`127.0.0.1:${backend.proc.port}/some/path`);
    assert.ok(probed.ok, JSON.stringify(probed));
    assert.equal(probed.probe.origin, backend.origin, 'a bare host:port means https, the path is dropped');
    assert.equal(probed.probe.fingerprint, backend.fingerprint, 'the fingerprint shown is the one the backend logs');
    assert.equal(probed.probe.status.bound, true);
    assert.equal(probed.probe.status_agrees, true);
    assert.match(probed.probe.certificate!.names, /IP Address:127\.0\.0\.1/);

    const wrong = await remotes.pair({ origin: backend.origin, fingerprint: backend.fingerprint, code: '000000' });
    assert.deepEqual(wrong.ok ? null : wrong.reason, 'wrong_code');
    const code = await inviteFrom(pin, firstCredential);
    const otherCert = `SHA256:${'AB:'.repeat(31)}AB`;
    const impostor = await remotes.pair({ origin: backend.origin, fingerprint: otherCert, code });
    assert.equal(impostor.ok ? null : impostor.reason, 'certificate_changed', 'a certificate other than the compared one gets nothing');
    assert.match(impostor.ok ? '' : impostor.message, /Nothing was sent/);

    const paired = await remotes.pair({ origin: backend.origin, fingerprint: backend.fingerprint, code });
    assert.ok(paired.ok, JSON.stringify(paired));
    assert.equal(paired.remote.fingerprint, backend.fingerprint);
    assert.equal(paired.remote.has_credential, true);
    const devices = await pinnedRequest<{ devices: { name: string }[] }>(pin, 'GET', '/api/selfhost/devices', {
      credential: firstCredential,
    });
    assert.deepEqual(
      devices.body.devices.map((d) => d.name),
      ['Server console', 'Desktop app (test)'],
    );
    assert.equal((await remotes.state()).active.kind, 'local', 'pairing alone does not switch');

    await remotes.use(backend.origin);
    const local = new LocalCredentialFile(path.join(folder, 'credential.enc'), cipher);
    const slots = new CredentialSlots(local, () => remotes.book);
    const credential = await slots.read();
    assert.match(credential ?? '', /^svc_/);
    assert.ok(!readFileSync(bookFile, 'utf8').includes(credential!), 'the book holds the credential only encrypted');
    const providers = await pinnedRequest(pin, 'GET', '/api/config/providers', { credential: credential! });
    assert.equal(providers.status, 200, 'the stored credential works on the remote');
    const state = await remotes.state();
    assert.equal(state.active.kind === 'remote' && state.active.check, 'ok');

    // Across a restart of the app: same pin, same active backend, same credential.
    const reopened = await RemoteBook.open(bookFile, cipher);
    assert.equal(reopened.active, backend.origin);
    assert.equal(reopened.readCredential(backend.origin), credential);
    assert.equal(reopened.pins().get(backend.origin)?.fingerprint, backend.fingerprint);
  });

  it('refuses the backend once its certificate changed, explains old vs new, and re-pairs after a fresh comparison', async () => {
    const remotes = new RemoteBackends(await RemoteBook.open(bookFile, cipher), 'Desktop app (test)');
    const old = backend.fingerprint;
    const { port, dataDir } = backend.proc;
    await backend.proc.stop();
    // The backend's certificate is regenerated (its selfhost/tls folder deleted), same address.
    rmSync(path.join(dataDir, 'selfhost', 'tls'), { recursive: true, force: true });
    backend = { ...(await startTls(dataDir, port)) };
    assert.notEqual(backend.fingerprint, old);
    pin = { ...pin, fingerprint: backend.fingerprint };

    const state = await remotes.state();
    assert.ok(state.active.kind === 'remote' && state.active.check === 'refused', JSON.stringify(state.active));
    const { refusal } = state.active;
    assert.equal(refusal.pinned, old);
    assert.equal(refusal.presented, backend.fingerprint);
    assert.match(refusal.message, /different certificate than the one pinned/);
    assert.ok(refusal.message.includes(old) && refusal.message.includes(backend.fingerprint), 'both fingerprints are named');
    assert.match(refusal.message, /intercepting|replaced/);
    const certPem = readFileSync(path.join(dataDir, 'selfhost', 'tls', 'cert.pem'), 'utf8');
    assert.equal(remotes.book.pins().chromiumVerdict('127.0.0.1', certPem), -2, "Chromium's check refuses it too");

    // Re-pair: forget the pin, compare the new fingerprint, join with a new invite.
    await remotes.forget(backend.origin);
    assert.equal((await remotes.state()).active.kind, 'local', 'forgetting the backend in use falls back to local');
    const probed = await remotes.probe(backend.origin);
    assert.equal(probed.ok && probed.probe.fingerprint, backend.fingerprint);
    assert.equal(probed.ok && probed.known, null);
    const code = await inviteFrom(pin, firstCredential);
    const paired = await remotes.pair({ origin: backend.origin, fingerprint: backend.fingerprint, code, device_name: 'Laptop' });
    assert.ok(paired.ok, JSON.stringify(paired));
    await remotes.use(backend.origin);
    const again = await remotes.state();
    assert.equal(again.active.kind === 'remote' && again.active.check, 'ok');
    assert.equal(remotes.book.pins().chromiumVerdict('127.0.0.1', certPem), 0);
  });

  it('says why a probe failed: nothing listening, plain http to another machine, not a backend', async () => {
    const remotes = new RemoteBackends(await RemoteBook.open(path.join(folder, 'other.json'), cipher), 'x');
    const closed = await remotes.probe('https://127.0.0.1:1');
    assert.equal(closed.ok ? null : closed.reason, 'unreachable');
    assert.match(closed.ok ? '' : closed.message, /nothing is listening/);
    const insecure = await remotes.probe('http://192.0.2.7:8080');
    assert.equal(insecure.ok ? null : insecure.reason, 'insecure', 'refused before any connection');
    const plainToTls = await remotes.probe(`http://127.0.0.1:${backend.proc.port}`);
    assert.equal(plainToTls.ok, false, 'http:// to a TLS port is no backend answer');
    const pairHttpWithFingerprint = await remotes.pair({ origin: 'http://127.0.0.1:9', fingerprint: backend.fingerprint, code: '123456' });
    assert.match(pairHttpWithFingerprint.ok ? '' : pairHttpWithFingerprint.message, /fingerprint is needed for https and only for https/);
  });

  it('pairs with an unpaired plain-http backend on loopback by its pairing code (claim), with nothing to pin', async () => {
    const plain = await BackendProcess.start();
    try {
      await plain.waitForLine(/^pairing code: \d{6}/);
      const remotes = new RemoteBackends(await RemoteBook.open(path.join(folder, 'plain.json'), cipher), 'Desktop app (test)');
      const probed = await remotes.probe(plain.url);
      assert.ok(probed.ok, JSON.stringify(probed));
      assert.deepEqual([probed.probe.secure, probed.probe.fingerprint, probed.probe.status.bound], [false, null, false]);
      assert.equal(probed.warning, null, 'loopback http needs no warning');
      const paired = await remotes.pair({ origin: plain.url, fingerprint: null, code: plain.pairingCode()! });
      assert.ok(paired.ok, JSON.stringify(paired));
      assert.equal(paired.remote.fingerprint, null);
      assert.deepEqual(remotes.book.pins().toJSON(), { pins: [] });
      const again = await remotes.pair({ origin: plain.url, fingerprint: null, code: '123456' });
      assert.equal(again.ok ? null : again.reason, 'wrong_code', 'a paired backend expects an invite now');
    } finally {
      await plain.stop();
      plain.cleanup();
    }
  });
});
