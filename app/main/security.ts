import { app, dialog, session, shell, type BrowserWindow, type WebContents } from 'electron';
import { hardenPreviewContents, isPreviewContents } from './preview-window.js';
import { externalLinkDecision, isPermissionAllowed, isRendererUrl } from './security-policy.js';

async function openExternal(url: string, owner: () => BrowserWindow | undefined): Promise<void> {
  const decision = externalLinkDecision(url);
  if (decision.action === 'refuse') return;
  if (decision.action === 'ask') {
    const window = owner();
    const options = {
      type: 'question' as const,
      buttons: ['Open', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      message: 'Open this link outside the app?',
      detail: `${decision.url}\n\nIt is not an https link.`,
    };
    const { response } = window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options);
    if (response !== 0) return;
  }
  await shell.openExternal(decision.url);
}

/**
 * Default-deny for every web contents: no navigation away from the renderer, no new windows
 * (links go to the system browser, see externalLinkDecision), no webviews, no permission other
 * than the renderer's own loopback access, and LAN access while a remote backend is in use (see
 * isPermissionAllowed).
 */
export function hardenWebContents(owner: () => BrowserWindow | undefined, remoteInUse: () => boolean = () => false): void {
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(isPermissionAllowed(permission, details.requestingUrl, remoteInUse())),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, remoteInUse()),
  );
  app.on('web-contents-created', (_event, contents: WebContents) => {
    // A full-size artifact preview gets stricter rules: it never opens a link outside either.
    if (isPreviewContents(contents)) return hardenPreviewContents(contents);
    contents.on('will-navigate', (event, url) => {
      if (isRendererUrl(url)) return;
      event.preventDefault();
      // Checked again here: a preview window never opens a link outside (preview-window.ts).
      if (!isPreviewContents(contents)) void openExternal(url, owner);
    });
    contents.on('will-redirect', (event, url) => {
      if (!isRendererUrl(url)) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      if (!isPreviewContents(contents)) void openExternal(url, owner);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}
