import { app, session, shell } from 'electron';
import { RENDERER_HOST, RENDERER_SCHEME } from './renderer-files.js';

function isExternalWebLink(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

function isRendererUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${RENDERER_SCHEME}:` && parsed.host === RENDERER_HOST;
  } catch {
    return false;
  }
}

/**
 * Default-deny for every web contents: no navigation away from the renderer, no new windows
 * (http(s) links go to the system browser), no webviews, no permission prompts.
 */
export function hardenWebContents(): void {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (isRendererUrl(url)) return;
      event.preventDefault();
      if (isExternalWebLink(url)) void shell.openExternal(url);
    });
    contents.on('will-redirect', (event, url) => {
      if (!isRendererUrl(url)) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      if (isExternalWebLink(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}
