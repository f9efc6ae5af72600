import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONTENT_SECURITY_POLICY, policyForFile, resolveRendererFile } from '../../app/main/renderer-files.js';
import { PREVIEW_CSP } from '../../backend/http/preview-api.js';

const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const directives = (policy: string) => new Map(policy.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));

describe('the artifact preview page (app://renderer/preview.html)', () => {
  const root = path.resolve('/opt/app/renderer');

  it('is the only file served with the preview policy; every other file keeps the app policy', () => {
    const preview = resolveRendererFile(root, 'app://renderer/preview.html');
    assert.ok(preview.ok);
    assert.equal(policyForFile(root, preview.file, null), PREVIEW_CSP, 'the backend’s policy: one contract for browsers and the app');
    for (const url of ['app://renderer/', 'app://renderer/index.html', 'app://renderer/assets/preview.html', 'app://renderer/preview']) {
      const file = resolveRendererFile(root, url);
      assert.ok(file.ok, url);
      assert.equal(policyForFile(root, file.file, null), CONTENT_SECURITY_POLICY, url);
    }
  });

  it('allows no request at all, and runs sandboxed with an opaque origin', () => {
    const d = directives(PREVIEW_CSP);
    assert.equal(d.get('default-src'), "'none'");
    assert.equal(d.get('script-src'), "'unsafe-inline'", 'inline only: no URL, no eval');
    assert.equal(d.get('img-src'), 'data: blob:');
    assert.equal(d.get('form-action'), "'none'");
    assert.equal(d.get('sandbox'), 'allow-scripts', 'never allow-same-origin, popups, forms, downloads or top navigation');
    assert.ok(!d.has('connect-src') && !d.has('frame-src') && !d.has('child-src'), 'everything else falls back to none');
  });

  it('leaves the app’s own script-src without unsafe-inline (a srcdoc frame would have needed it)', () => {
    assert.equal(directives(CONTENT_SECURITY_POLICY).get('script-src'), "'self'");
    assert.equal(directives(CONTENT_SECURITY_POLICY).get('frame-ancestors'), "'none'");
  });

  it('takes code only from its embedder, by window, and its <meta> repeats the no-network policy', () => {
    const page = readFileSync(path.join(ROOT_DIR, 'renderer', 'public', 'preview.html'), 'utf8');
    assert.match(page, /e\.source !== host/);
    assert.doesNotMatch(page, /<script[^>]+src=/, 'no script from a URL');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(page)?.[1] ?? '';
    assert.equal(directives(meta).get('default-src'), "'none'");
    assert.equal(directives(meta).get('form-action'), "'none'");
  });
});
