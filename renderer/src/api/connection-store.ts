import { fromShell, shell, shellBackendReady, type BackendState } from '../platform/shell-bridge';

const URL_KEY = 'service.backendUrl';
const CREDENTIAL_PREFIX = 'service.credential:';
const DEFAULT_BACKEND = 'http://127.0.0.1:8080';

export function normalizeBackendUrl(input: string): string | null {
  try {
    const url = new URL(input.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The backend to talk to: the shell's bundled one, a URL the user chose, or the page's own origin. */
export async function initialBackendUrl(onShellProgress: (state: BackendState) => void = () => undefined): Promise<string> {
  const bridge = shell();
  if (bridge) {
    const ready = await shellBackendReady(bridge, onShellProgress);
    if (ready.swapUrl) localStorage.setItem('service.swapUrl', ready.swapUrl);
    return normalizeBackendUrl(ready.url) ?? ready.url;
  }
  const remembered = localStorage.getItem(URL_KEY);
  if (remembered) return remembered;
  return location.protocol.startsWith('http') ? location.origin : DEFAULT_BACKEND;
}

export function rememberBackendUrl(url: string): void {
  if (url === location.origin) localStorage.removeItem(URL_KEY);
  else localStorage.setItem(URL_KEY, url);
}

/** App: the shell's safeStorage (one bundled backend). Browser: local storage keyed by backend URL. */
export async function readCredential(baseUrl: string): Promise<string | null> {
  const bridge = shell();
  if (bridge) {
    try {
      return await fromShell(bridge.credential.read());
    } catch {
      return null;
    }
  }
  return localStorage.getItem(CREDENTIAL_PREFIX + baseUrl);
}

export async function storeCredential(baseUrl: string, credential: string): Promise<void> {
  const bridge = shell();
  if (bridge) {
    await fromShell(bridge.credential.store(credential));
    return;
  }
  localStorage.setItem(CREDENTIAL_PREFIX + baseUrl, credential);
}

export async function clearCredential(baseUrl: string): Promise<void> {
  const bridge = shell();
  if (bridge) await fromShell(bridge.credential.clear()).catch(() => undefined);
  localStorage.removeItem(CREDENTIAL_PREFIX + baseUrl);
}
