import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONTENT_SECURITY_POLICY, resolveRendererFile } from '../../app/main/renderer-files.js';

const ROOT = path.resolve('/opt/app/renderer');
const file = (url: string) => {
  const r = resolveRendererFile(ROOT, url);
  return r.ok ? r.file : r.status;
};

describe('app://renderer/ protocol path guard', () => {
  it('serves files inside the renderer folder', () => {
    assert.equal(file('app://renderer/'), path.join(ROOT, 'index.html'));
    assert.equal(file('app://renderer/assets/index-abc.js'), path.join(ROOT, 'assets', 'index-abc.js'));
    assert.equal(file('app://renderer/assets/my%20font.woff2?v=1#x'), path.join(ROOT, 'assets', 'my font.woff2'));
  });

  it('answers client-side routes with index.html', () => {
    assert.equal(file('app://renderer/providers/openai'), path.join(ROOT, 'index.html'));
  });

  it('refuses every way out of the folder', () => {
    for (const url of [
      'app://renderer/..%2f..%2fetc%2fpasswd',
      'app://renderer/assets%2f..%2f..%2f..%2fetc%2fpasswd',
      'app://renderer/..%5c..%5cwindows%5cwin.ini',
      'app://renderer/assets/x.js%00.png',
      'app://renderer/%2e%2e/%2e%2e/etc/passwd.txt',
    ]) {
      const result = file(url);
      assert.ok(result === 403 || (typeof result === 'string' && result.startsWith(ROOT + path.sep)), `${url} -> ${result}`);
      assert.ok(!String(result).includes('passwd') || String(result).startsWith(ROOT + path.sep), url);
    }
    assert.equal(file('app://renderer/..%2f..%2fetc%2fpasswd'), 403);
    assert.equal(file('app://renderer/x.js%00.png'), 403);
  });

  it('serves only its own scheme and host', () => {
    assert.equal(file('app://other/index.html'), 403);
    assert.equal(file('file:///etc/passwd'), 403);
    assert.equal(file('app://renderer/%E0%A4%A'), 400);
  });

  it('has a CSP that allows only its own scripts and loopback connections', () => {
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/);
    assert.match(CONTENT_SECURITY_POLICY, /object-src 'none'/);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-eval|(^|\s)\*(\s|;|$)|https?:\/\/\*/);
    const connect = /connect-src ([^;]+)/.exec(CONTENT_SECURITY_POLICY)![1].split(' ');
    for (const source of connect) assert.match(source, /^('self'|(http|ws):\/\/(127\.0\.0\.1|localhost):\*)$/);
  });
});

describe('the CSP <meta> in renderer/index.html', () => {
  const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
  const metaPolicy = (html: string) => /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
  // A <meta> cannot carry frame-ancestors (browsers ignore it there); the header sets it.
  const expected = CONTENT_SECURITY_POLICY.split('; ')
    .filter((d) => !d.startsWith('frame-ancestors'))
    .join('; ');

  it('is the app header’s policy, in the source and in the built bundle, before any script', (t) => {
    const source = readFileSync(path.join(ROOT_DIR, 'renderer', 'index.html'), 'utf8');
    assert.equal(metaPolicy(source), expected);
    assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
    const built = path.join(ROOT_DIR, 'dist', 'renderer', 'index.html');
    if (!existsSync(built)) return t.skip('dist/renderer is not built');
    const html = readFileSync(built, 'utf8');
    assert.equal(metaPolicy(html), expected);
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), 'the policy comes before the first script');
  });
});
