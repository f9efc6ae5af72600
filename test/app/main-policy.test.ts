import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { isReportableLoadFailure, startUrl, whenLoaded } from '../../app/main/page-load.js';
import { externalLinkDecision, isPermissionAllowed } from '../../app/main/security-policy.js';
import { caCertArgs } from '../../app/supervisor/ca-certs.js';
import { shellEnvArgs } from '../../app/supervisor/shell-env.js';
import { tempDir } from '../helpers/backend-process.js';

describe('links the renderer opens outside the app', () => {
  it('opens https at once, asks for http and mailto, never opens anything else', () => {
    assert.deepEqual(externalLinkDecision('https://example.com/docs?q=1'), { action: 'open', url: 'https://example.com/docs?q=1' });
    assert.equal(externalLinkDecision('http://example.com/').action, 'ask');
    assert.equal(externalLinkDecision('mailto:someone@example.com').action, 'ask');
    assert.equal(externalLinkDecision('https://user:pw@example.com/').action, 'ask', 'credentials in a link are worth a look');
    for (const url of ['file:///etc/passwd', 'smb://host/share', 'javascript:alert(1)', 'vscode://x', 'ms-msdt:/id', 'not a url', '']) {
      assert.equal(externalLinkDecision(url).action, 'refuse', url);
    }
  });
});

describe('permissions', () => {
  it('grants only loopback access, only to the app’s own renderer (Local Network Access)', () => {
    assert.equal(isPermissionAllowed('loopback-network', 'app://renderer/'), true);
    assert.equal(isPermissionAllowed('local-network-access', 'app://renderer'), true);
    assert.equal(isPermissionAllowed('local-network', 'app://renderer/'), false, 'no LAN access');
    assert.equal(isPermissionAllowed('loopback-network', 'https://evil.example/'), false);
    assert.equal(isPermissionAllowed('loopback-network', 'app://other/'), false);
    assert.equal(isPermissionAllowed('loopback-network', undefined), false);
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read'])
      assert.equal(isPermissionAllowed(p, 'app://renderer/'), false, p);
  });
});

describe('loading the page', () => {
  it('reports main-frame failures except a navigation replaced by another', () => {
    assert.equal(isReportableLoadFailure(-6, true), true); // ERR_FILE_NOT_FOUND
    assert.equal(isReportableLoadFailure(-3, true), false); // ERR_ABORTED
    assert.equal(isReportableLoadFailure(-6, false), false); // a subframe
    assert.equal(startUrl('app://renderer/', 'logs'), 'app://renderer/#/logs');
    assert.equal(startUrl('app://renderer/'), 'app://renderer/');
  });

  it('"Show logs" with a page still loading is delivered after it has loaded, not lost', () => {
    const page = Object.assign(new EventEmitter(), { loading: true, isLoading: () => page.loading });
    const delivered: string[] = [];
    whenLoaded(page, () => delivered.push('show-logs'));
    assert.equal(delivered.length, 0);
    page.loading = false;
    page.emit('did-finish-load');
    assert.deepEqual(delivered, ['show-logs']);
    page.emit('did-finish-load');
    assert.deepEqual(delivered, ['show-logs'], 'once');
    whenLoaded(page, () => delivered.push('again'));
    assert.deepEqual(delivered, ['show-logs', 'again'], 'at once when loaded');
  });
});

describe('extra CA certificates for the backend in the app', () => {
  it('passes SERVICE_CA_CERTS, else an existing NODE_EXTRA_CA_CERTS, as -ca-certs', () => {
    const dir = tempDir('svc-ca-args-');
    const file = path.join(dir, 'root.pem');
    writeFileSync(file, 'x');
    try {
      assert.deepEqual(caCertArgs({ SERVICE_CA_CERTS: '/etc/proxy.pem', NODE_EXTRA_CA_CERTS: file }), ['-ca-certs', '/etc/proxy.pem']);
      assert.deepEqual(caCertArgs({ NODE_EXTRA_CA_CERTS: file }), ['-ca-certs', file]);
      // Node only warns about a missing NODE_EXTRA_CA_CERTS file; the app must not fail the backend over it.
      assert.deepEqual(caCertArgs({ NODE_EXTRA_CA_CERTS: path.join(dir, 'missing.pem') }), []);
      assert.deepEqual(caCertArgs({ SERVICE_CA_CERTS: '  ' }), []);
      assert.deepEqual(caCertArgs({}), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the login-shell PATH for tool servers in the app', () => {
  it('passes -shell-env on macOS and Linux, not on Windows', () => {
    assert.deepEqual(shellEnvArgs('darwin'), ['-shell-env']);
    assert.deepEqual(shellEnvArgs('linux'), ['-shell-env']);
    assert.deepEqual(shellEnvArgs('win32'), []);
  });
});
