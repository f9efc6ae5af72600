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

export function isPermissionAllowed(permission: string, requestingUrl: string | undefined | null): boolean {
  return LOOPBACK_PERMISSIONS.has(permission) && isRendererUrl(requestingUrl);
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
