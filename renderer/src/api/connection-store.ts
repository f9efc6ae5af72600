import type { ActiveBackend } from '../../../app/ipc/contract.js';
import { fromShell, shell, shellBackendReady, type BackendState } from '../platform/shell-bridge';

const URL_KEY = 'service.backendUrl';
const CREDENTIAL_PREFIX = 'service.credential:';
const NODE_PREFIX = 'service.credential.node:';
const DEFAULT_BACKEND = 'http://127.0.0.1:8080';

/** A typed backend address as an origin; a bare `host:port` gets `http://`. */
export function normalizeBackendUrl(input: string): string | null {
  const trimmed = input.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
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

/** Desktop app: the remote backend the window uses (checked against its pin by the shell), else null. */
export async function activeRemote(): Promise<Extract<ActiveBackend, { kind: 'remote' }> | null> {
  const bridge = shell();
  if (!bridge?.remote) return null;
  try {
    const state = await fromShell(bridge.remote.getState());
    return state.active.kind === 'remote' ? state.active : null;
  } catch {
    return null;
  }
}

export function rememberBackendUrl(url: string): void {
  if (url === location.origin) localStorage.removeItem(URL_KEY);
  else localStorage.setItem(URL_KEY, url);
}

/**
 * Browser storage key of the credential for one backend: its origin (DESIGN 16). Never the node id
 * the backend reports about itself: any server can claim another's id and be handed its credential.
 */
export function credentialKey(baseUrl: string): string {
  return CREDENTIAL_PREFIX + (normalizeBackendUrl(baseUrl) ?? baseUrl);
}

/**
 * App: the shell's safeStorage, in the slot of the backend the window uses (bundled or remote).
 * Browser: local storage keyed by the backend's origin. Older builds keyed it by the reported
 * node id; such a credential moves to the origin key once, and only for the page's own origin
 * (which can read this storage anyway) or the backend URL the user chose here (the one origin that
 * credential was stored for): no other address is ever handed it for claiming that id.
 */
export async function readCredential(baseUrl: string, reportedNodeId: string | null): Promise<string | null> {
  const bridge = shell();
  if (bridge) {
    try {
      return await fromShell(bridge.credential.read());
    } catch {
      return null;
    }
  }
  const key = credentialKey(baseUrl);
  const stored = localStorage.getItem(key);
  if (stored) return stored;
  const remembered = localStorage.getItem(URL_KEY);
  const trusted = key === credentialKey(location.origin) || (remembered !== null && key === credentialKey(remembered));
  if (!reportedNodeId || !trusted) return null;
  const legacy = localStorage.getItem(NODE_PREFIX + reportedNodeId);
  if (!legacy) return null;
  localStorage.setItem(key, legacy);
  localStorage.removeItem(NODE_PREFIX + reportedNodeId);
  return legacy;
}

export async function storeCredential(baseUrl: string, credential: string): Promise<void> {
  const bridge = shell();
  if (bridge) {
    await fromShell(bridge.credential.store(credential));
    return;
  }
  localStorage.setItem(credentialKey(baseUrl), credential);
}

/**
 * Forgets the stored credential. With `only`, forgets it only while it is still that value: a
 * window whose old credential was refused must not erase the new one another window just stored.
 */
export async function clearCredential(baseUrl: string, only?: string): Promise<void> {
  const current = await readCredential(baseUrl, null);
  if (only !== undefined && current !== null && current !== only) return;
  const bridge = shell();
  if (bridge) await fromShell(bridge.credential.clear()).catch(() => undefined);
  localStorage.removeItem(credentialKey(baseUrl));
}
