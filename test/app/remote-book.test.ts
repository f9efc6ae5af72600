import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { contentSecurityPolicy, remoteConnectSources, withMetaPolicy } from '../../app/main/renderer-files.js';
import { CredentialSlots, LocalCredentialFile } from '../../app/remote/credential-slots.js';
import { RemoteBook } from '../../app/remote/remote-book.js';
import { parseRemoteUrl } from '../../app/remote/remote-url.js';
import { tempDir } from '../helpers/backend-process.js';
import { testCipher } from '../helpers/test-cipher.js';

const FP = `SHA256:${'0A:'.repeat(31)}0A`;
const CRED = `svc_${'B'.repeat(43)}`;

describe('the remote backend address', () => {
  it('takes https anywhere, http only on loopback or when the user confirms it', () => {
    const ok = (input: string, allowInsecure = false) => {
      const r = parseRemoteUrl(input, { allowInsecure });
      return r.ok ? `${r.origin}${r.secure ? '' : ' insecure'}${r.warning ? ' warned' : ''}` : `${r.reason}: ${r.message}`;
    };
    assert.equal(ok('https://home.example:8443/chat'), 'https://home.example:8443');
    assert.equal(ok('192.168.1.20:8080'), 'https://192.168.1.20:8080');
    assert.equal(ok('https://[fe80::1]:8443'), 'https://[fe80::1]:8443');
    assert.equal(ok('http://127.0.0.1:8080'), 'http://127.0.0.1:8080 insecure');
    assert.equal(ok('http://localhost:9000'), 'http://localhost:9000 insecure');
    assert.match(ok('http://192.168.1.20:8080'), /^insecure: url: http:\/\/192\.168\.1\.20:8080 is plain http:\/\/ on another machine/);
    assert.equal(ok('http://192.168.1.20:8080', true), 'http://192.168.1.20:8080 insecure warned');
    assert.match(ok('ftp://x'), /^scheme: url: must start with https:\/\//);
    assert.match(ok(''), /^invalid: url: enter the backend address/);
    assert.match(ok('https://user:pw@host'), /^invalid: url: must not carry a user name or password/);
    assert.match(ok('https://exa mple'), /^invalid: url: "https:\/\/exa mple" is not an address/);
  });
});

describe('the renderer CSP with a remote backend', () => {
  const connect = (policy: string) => /connect-src ([^;]+)/.exec(policy)![1].split(' ');

  it("adds exactly the remote's https and wss origin, nothing broader", () => {
    const base = connect(contentSecurityPolicy());
    const remote = connect(contentSecurityPolicy('https://192.168.1.20:8443'));
    assert.deepEqual(remote, [...base, 'https://192.168.1.20:8443', 'wss://192.168.1.20:8443']);
    assert.deepEqual(remoteConnectSources('https://[::1]:9'), ['https://[::1]:9', 'wss://[::1]:9']);
    assert.deepEqual(remoteConnectSources('http://192.168.1.20:8080'), ['http://192.168.1.20:8080', 'ws://192.168.1.20:8080']);
    for (const bad of ['https://*.example', 'https://host/path', 'javascript:alert(1)', "https://a'b"]) {
      assert.throws(() => contentSecurityPolicy(bad), /not a backend origin/, bad);
    }
    assert.doesNotMatch(contentSecurityPolicy('https://h:1'), /(^|\s)(https?:|wss?:|\*)(\s|;|$)/, 'no bare scheme or wildcard source');
  });

  it('rewrites the <meta> policy of index.html to the same remote (a page enforces both)', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const html = readFileSync(path.join(root, 'renderer', 'index.html'), 'utf8');
    const out = withMetaPolicy(html, contentSecurityPolicy('https://nas.local:8443'));
    const meta = /content="([^"]+)"/.exec(out.slice(out.indexOf('Content-Security-Policy')))![1];
    assert.match(meta, /connect-src [^;]*https:\/\/nas\.local:8443 wss:\/\/nas\.local:8443;/);
    assert.doesNotMatch(meta, /frame-ancestors/);
    assert.equal(out.replace(meta, ''), html.replace(/(http-equiv="Content-Security-Policy"\s+content=")[^"]+/, '$1'));
    assert.throws(() => withMetaPolicy('<html></html>', contentSecurityPolicy()), /no Content-Security-Policy <meta>/);
  });
});

describe('credential slots: the local one unchanged, one per remote', () => {
  it('reads the local credential a previous version stored, and keeps it while a remote is in use', async () => {
    const folder = tempDir('svc-slots-');
    const cipher = testCipher();
    try {
      const localFile = path.join(folder, 'credential.enc');
      // The file as the single-slot store wrote it: base64 of the ciphertext and a newline.
      writeFileSync(localFile, `${cipher.encrypt(CRED).toString('base64')}\n`, { mode: 0o600 });
      const book = await RemoteBook.open(path.join(folder, 'remote-backends.json'), cipher);
      const slots = new CredentialSlots(new LocalCredentialFile(localFile, cipher), () => book);
      assert.equal(await slots.read(), CRED, 'existing data keeps working');

      await book.add({
        origin: 'https://nas.local:8443',
        fingerprint: FP,
        node_id: 'n1',
        device_id: 'd1',
        display_name: null,
        paired_at: '2026-11-24T12:00:00.000Z',
        credential: `svc_${'C'.repeat(43)}`,
      });
      await book.use('https://nas.local:8443');
      assert.equal(await slots.read(), `svc_${'C'.repeat(43)}`);
      await slots.clear(); // a 401 from the remote clears its slot only
      assert.equal(await slots.read(), null);
      assert.equal(book.list()[0].has_credential, false);
      await slots.store(`svc_${'D'.repeat(43)}`);
      assert.equal(book.readCredential('https://nas.local:8443'), `svc_${'D'.repeat(43)}`);
      await book.use('local');
      assert.equal(await slots.read(), CRED, 'the local slot was never touched');
      assert.equal(statSync(path.join(folder, 'remote-backends.json')).mode & 0o777, 0o600);
      await assert.rejects(book.use('https://other:1'), /no paired backend at https:\/\/other:1/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses a damaged book with the field named, and leaves the file as it was', async () => {
    const folder = tempDir('svc-slots-');
    try {
      const file = path.join(folder, 'remote-backends.json');
      const damaged = JSON.stringify({ version: 1, active: 'local', remotes: [{ origin: 'https://x:1', fingerprint: 'SHA256:00' }] });
      writeFileSync(file, damaged);
      await assert.rejects(
        RemoteBook.open(file, testCipher()),
        /remote-backends\.json: remotes\.0\.fingerprint: must be SHA256: and 32 hex pairs/,
      );
      writeFileSync(file, '{"version":');
      await assert.rejects(RemoteBook.open(file, testCipher()), /not JSON/);
      assert.equal(readFileSync(file, 'utf8'), '{"version":');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
