import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import vm from 'node:vm';
import { parseRequest } from '../../app/ipc/validate.js';
import {
  PREVIEW_PARTITION,
  PREVIEW_WINDOW_URL,
  previewNavigationAllowed,
  previewPageRequest,
  previewRequestAllowed,
  previewWindowOptions,
  renderScript,
} from '../../app/main/preview-window-policy.js';
import { PREVIEW_CSP } from '../../backend/http/preview-api.js';

// The desktop full-size preview window (docs/artifacts.md): its rules as plain functions, applied
// by app/main/preview-window.ts.

describe('the full-size preview window', () => {
  const root = path.resolve('/opt/app/renderer');

  it('has no preload and every locked-down preference, in a session of its own that keeps nothing', () => {
    const o = previewWindowOptions('Preview of the html block');
    const w = o.webPreferences ?? {};
    assert.equal(w.preload, undefined, 'no preload: the page has no way to the main process');
    assert.equal(w.sandbox, true);
    assert.equal(w.contextIsolation, true);
    assert.equal(w.nodeIntegration, false);
    assert.equal(w.nodeIntegrationInWorker, false);
    assert.equal(w.nodeIntegrationInSubFrames, false);
    assert.equal(w.webviewTag, false);
    assert.equal(w.webSecurity, true);
    assert.equal(w.allowRunningInsecureContent, false);
    assert.equal(w.disableDialogs, true);
    assert.equal(w.navigateOnDragDrop, false);
    assert.equal(w.partition, PREVIEW_PARTITION);
    assert.ok(PREVIEW_PARTITION && !PREVIEW_PARTITION.startsWith('persist:'), 'in memory, not the app’s default session');
    assert.equal(o.title, 'Preview of the html block');
    assert.equal(o.show, false, 'shown once painted');
  });

  it('serves only the preview page, with the one preview policy (the backend’s)', () => {
    const page = previewPageRequest(root, PREVIEW_WINDOW_URL);
    assert.ok(page.ok);
    assert.equal(page.file, path.join(root, 'preview.html'));
    assert.equal(page.headers['Content-Security-Policy'], PREVIEW_CSP);
    assert.match(PREVIEW_CSP, /(^|; )sandbox allow-scripts(;|$)/, 'opaque origin in a window of its own too');
    assert.match(PREVIEW_CSP, /(^|; )default-src 'none'(;|$)/);
    for (const url of [
      'app://renderer/',
      'app://renderer/index.html',
      'app://renderer/assets/index.js',
      'app://renderer/assets/preview.html',
      'app://other/preview.html',
      'https://example.com/preview.html',
    ]) {
      assert.deepEqual(previewPageRequest(root, url), { ok: false, status: 404 }, url);
    }
  });

  it('lets no request out: only the page itself and data:/blob: content', () => {
    assert.equal(previewRequestAllowed(PREVIEW_WINDOW_URL), true);
    assert.equal(previewRequestAllowed('data:image/png;base64,AAAA'), true);
    assert.equal(previewRequestAllowed('blob:null/1c9e0a4e-0000-4000-8000-000000000000'), true);
    for (const url of [
      'https://example.com/x.js',
      'http://127.0.0.1:8080/api/config/providers',
      'ws://127.0.0.1:8080/ws',
      'app://renderer/',
      'app://renderer/index.html',
      'app://renderer/preview.html?x=1',
      'file:///etc/passwd',
    ]) {
      assert.equal(previewRequestAllowed(url), false, url);
    }
  });

  it('never navigates: not to a link, not to the app, not to itself; inner frames only to about:', () => {
    for (const url of ['https://example.com/', 'http://127.0.0.1:8080/', 'app://renderer/', PREVIEW_WINDOW_URL, 'javascript:1']) {
      assert.equal(previewNavigationAllowed(url, true), false, url);
    }
    assert.equal(previewNavigationAllowed('about:srcdoc', false), true);
    assert.equal(previewNavigationAllowed('about:blank', false), true);
    assert.equal(previewNavigationAllowed('https://example.com/', false), false);
    assert.equal(previewNavigationAllowed('app://renderer/', false), false);
  });

  it('hands the artifact over as one message, whatever characters the code holds', () => {
    const code = "</script><script>alert(1)</script>'); globalThis.pwned = 1; ('` ${globalThis.pwned = 2} \u2028\u2029\\ \"";
    for (const kind of ['html', 'svg', 'diagram'] as const) {
      const posted: unknown[] = [];
      const sandbox: Record<string, unknown> = { window: { postMessage: (msg: unknown, target: string) => posted.push([msg, target]) } };
      vm.runInNewContext(renderScript({ kind, code, title: 't' }), sandbox);
      assert.deepEqual(JSON.parse(JSON.stringify(posted)), [[{ type: 'render', kind, code }, '*']]);
      assert.equal(sandbox.pwned, undefined, 'the code is data, never run by the script');
    }
  });

  it('takes only a checked artifact over IPC; the error names the field and the rule', () => {
    assert.ok(parseRequest('preview:open', { kind: 'html', code: '<p>x</p>', title: 'Preview' }).ok);
    const bad = (payload: unknown) => {
      const r = parseRequest('preview:open', payload);
      assert.ok(!r.ok);
      return r.error.message;
    };
    assert.match(bad({ kind: 'mermaid', code: 'x', title: 't' }), /kind: must be "html", "svg" or "diagram"/);
    assert.match(bad({ kind: 'html', code: 1, title: 't' }), /code: must be a string/);
    assert.match(bad({ kind: 'html', code: 'x'.repeat(16 * 1024 * 1024 + 1), title: 't' }), /code: must be at most/);
    assert.match(bad({ kind: 'html', code: 'x', title: ' ' }), /title: must not be empty/);
    assert.match(bad({ kind: 'html', code: 'x', title: 't', url: 'https://example.com/' }), /url/);
  });
});
