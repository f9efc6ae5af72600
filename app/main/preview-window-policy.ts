import type { BrowserWindowConstructorOptions } from 'electron';
import { PREVIEW_CSP, PREVIEW_FILE, PREVIEW_PATH } from '../../backend/http/preview-api.js';
import type { PreviewOpen } from '../ipc/contract.js';
import { RENDERER_HOST, RENDERER_SCHEME, resolveRendererFile } from './renderer-files.js';

// The rules of the desktop full-size preview window (docs/artifacts.md, DESIGN 15), as plain data
// and functions so they are tested under Node; app/main/preview-window.ts applies them. The window
// shows code a model wrote: the same page and policy as the in-chat preview frame (no request,
// opaque origin by the CSP sandbox), no preload, and a session of its own that keeps nothing,
// grants nothing, downloads nothing and serves nothing but the preview page.

/** No "persist:" prefix: an in-memory session, shared with nothing of the app's. */
export const PREVIEW_PARTITION = 'artifact-preview';

/** The page the window loads, from its own session's protocol handler. */
export const PREVIEW_WINDOW_URL = `${RENDERER_SCHEME}://${RENDERER_HOST}${PREVIEW_PATH}`;

export const PREVIEW_WINDOW_SIZE = { width: 1000, height: 760 };

/** Every web preference that matters spelled out; no preload, so the page has no way to the main process. */
export function previewWindowOptions(title: string): BrowserWindowConstructorOptions {
  return {
    ...PREVIEW_WINDOW_SIZE,
    minWidth: 320,
    minHeight: 240,
    show: false,
    title,
    autoHideMenuBar: true,
    backgroundColor: '#ffffff',
    webPreferences: {
      partition: PREVIEW_PARTITION,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      javascript: true,
      disableDialogs: true,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: false,
    },
  };
}

export type PreviewPageAnswer = { ok: true; file: string; headers: Record<string, string> } | { ok: false; status: 403 | 404 };

/** The preview session serves one file, the preview page, with the preview policy; anything else is refused. */
export function previewPageRequest(rendererDir: string, url: string): PreviewPageAnswer {
  const resolved = resolveRendererFile(rendererDir, url);
  if (!resolved.ok || new URL(url).pathname !== PREVIEW_PATH || !resolved.file.endsWith(PREVIEW_FILE)) return { ok: false, status: 404 };
  return {
    ok: true,
    file: resolved.file,
    headers: {
      'Content-Security-Policy': PREVIEW_CSP,
      'Content-Type': 'text/html; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    },
  };
}

/**
 * A request the preview session lets through (its webRequest filter, under the page's own CSP): the
 * preview page and the data:/blob: URLs it may show; nothing over the network.
 */
export function previewRequestAllowed(url: string): boolean {
  if (url === PREVIEW_WINDOW_URL) return true;
  return url.startsWith('data:') || url.startsWith('blob:');
}

/**
 * Navigation in the window: the page itself never moves (links, location, meta refresh: the window
 * would no longer show the preview, and a link must not open outside without a click in the app);
 * a frame inside it only to about:blank or about:srcdoc, which stay under the page's sandbox and CSP.
 */
export function previewNavigationAllowed(url: string, isMainFrame: boolean): boolean {
  if (isMainFrame) return false;
  return url === 'about:blank' || url === 'about:srcdoc';
}

/**
 * The script run in the loaded page to hand it the artifact: the same message the in-chat frame
 * gets, posted by the window to itself (the page takes messages from window.parent, which is the
 * window itself at the top). The payload is JSON, so no character of the code can end the literal.
 */
export function renderScript(input: PreviewOpen): string {
  const message = { type: 'render', kind: input.kind, code: input.code };
  return `window.postMessage(${JSON.stringify(message)}, '*');`;
}
