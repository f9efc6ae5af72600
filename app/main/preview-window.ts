import { BrowserWindow, net, session, type WebContents } from 'electron';
import { pathToFileURL } from 'node:url';
import { INVOKE, type PreviewOpen } from '../ipc/contract.js';
import { handle } from './ipc-handlers.js';
import {
  PREVIEW_PARTITION,
  PREVIEW_WINDOW_URL,
  previewNavigationAllowed,
  previewPageRequest,
  previewRequestAllowed,
  previewWindowOptions,
  renderScript,
} from './preview-window-policy.js';
import { RENDERER_SCHEME } from './renderer-files.js';

// "Open full size" in the desktop app: the artifact in a window of its own, with the in-chat
// frame's page, policy and sandbox. The rules are in preview-window-policy.ts (tested under Node).

const hardened = new WeakSet<WebContents>();

/**
 * True for the web contents of a preview window: the app-wide rules (security.ts) leave them to
 * hardenPreviewContents. Known by their session at creation, and by the window that opened them.
 */
export function isPreviewContents(contents: WebContents): boolean {
  return hardened.has(contents) || contents.session === session.fromPartition(PREVIEW_PARTITION);
}

/** Applied as the contents are created, before anything loads: nothing leaves, nothing opens. */
export function hardenPreviewContents(contents: WebContents): void {
  if (hardened.has(contents)) return;
  hardened.add(contents);
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-frame-navigate', (event) => {
    if (!previewNavigationAllowed(event.url, event.isMainFrame)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

function openPreviewWindow(input: PreviewOpen): void {
  const window = new BrowserWindow(previewWindowOptions(input.title));
  const contents = window.webContents;
  hardenPreviewContents(contents);
  // The artifact's own <title> must not rename the window (it could pose as the app).
  window.on('page-title-updated', (event) => event.preventDefault());
  // An endless loop: the window is closed rather than left hanging.
  window.on('unresponsive', () => window.destroy());
  window.once('ready-to-show', () => window.show());
  contents.once('did-finish-load', () => {
    contents.executeJavaScript(renderScript(input)).catch(() => undefined);
  });
  window.loadURL(PREVIEW_WINDOW_URL).catch(() => undefined);
}

/** The preview session (serves the preview page only, grants and downloads nothing) and the IPC that opens a window. */
export function registerPreviewWindows(rendererDir: string): void {
  const ses = session.fromPartition(PREVIEW_PARTITION);
  ses.protocol.handle(RENDERER_SCHEME, async (request) => {
    const answer = previewPageRequest(rendererDir, request.url);
    if (!answer.ok) return new Response('not found', { status: answer.status });
    const file = await net.fetch(pathToFileURL(answer.file).toString()).catch(() => null);
    if (!file || !file.ok) return new Response('not found', { status: 404 });
    return new Response(file.body, { status: 200, headers: answer.headers });
  });
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !previewRequestAllowed(details.url) }));
  ses.on('will-download', (event) => event.preventDefault());
  handle(INVOKE.previewOpen, (input) => {
    openPreviewWindow(input);
    return null;
  });
}
