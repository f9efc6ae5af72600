import { RENDERER_HOST, RENDERER_SCHEME } from './renderer-files.js';

/** The page (or origin) is the app's own renderer, app://renderer. */
export function isRendererUrl(url: string | undefined | null): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${RENDERER_SCHEME}:` && parsed.host === RENDERER_HOST;
  } catch {
    return false;
  }
}

/**
 * Chromium's Local Network Access: a page that is not itself on the loopback needs a permission
 * to call 127.0.0.1, which is where the backend listens. The permission was first called
 * `local-network-access` and is now split into `loopback-network` and `local-network` (LAN).
 * Only the loopback one is granted, and only to the app's own renderer; everything else is denied.
 */
const LOOPBACK_PERMISSIONS: ReadonlySet<string> = new Set(['loopback-network', 'local-network-access']);

/**
 * `local-network` (LAN addresses such as 192.168.x.x) only while the user has chosen a remote backend
 * (File → Connect to Another Backend…): the CSP then still limits the renderer to that one origin.
 */
export function isPermissionAllowed(permission: string, requestingUrl: string | undefined | null, remoteInUse = false): boolean {
  if (!isRendererUrl(requestingUrl)) return false;
  return LOOPBACK_PERMISSIONS.has(permission) || (remoteInUse && permission === 'local-network');
}

/**
 * What to do with a link the renderer tries to open outside: https opens in the system browser;
 * http and mailto only after the user confirms; anything else (file:, smb:, javascript:, custom
 * protocol handlers that can start programs) never.
 */
export type ExternalLinkDecision = { action: 'open' | 'ask'; url: string } | { action: 'refuse'; reason: string };

export function externalLinkDecision(url: string): ExternalLinkDecision {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { action: 'refuse', reason: 'not a URL' };
  }
  if (parsed.username || parsed.password) return { action: 'ask', url: parsed.href };
  switch (parsed.protocol) {
    case 'https:':
      return { action: 'open', url: parsed.href };
    case 'http:':
    case 'mailto:':
      return { action: 'ask', url: parsed.href };
    default:
      return { action: 'refuse', reason: `${parsed.protocol} links are not opened` };
  }
}
