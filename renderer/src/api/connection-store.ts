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

/** Browser storage key of the credential for one backend, recognised by its node_id (not its URL). */
export function credentialKey(nodeId: string): string {
  return NODE_PREFIX + nodeId;
}

/**
 * App: the shell's safeStorage, in the slot of the backend the window uses (bundled or remote). Browser: local storage keyed by the backend's
 * node_id, so `localhost` vs `127.0.0.1` or a new port after a restart find the same credential; a
 * credential stored by an older build under the URL is moved to the node key on first read.
 */
export async function readCredential(baseUrl: string, nodeId: string | null): Promise<string | null> {
  const bridge = shell();
  if (bridge) {
    try {
      return await fromShell(bridge.credential.read());
    } catch {
      return null;
    }
  }
  const legacy = localStorage.getItem(CREDENTIAL_PREFIX + baseUrl);
  if (!nodeId) return legacy;
  const stored = localStorage.getItem(credentialKey(nodeId));
  if (stored) return stored;
  if (legacy) {
    localStorage.setItem(credentialKey(nodeId), legacy);
    localStorage.removeItem(CREDENTIAL_PREFIX + baseUrl);
  }
  return legacy;
}

export async function storeCredential(baseUrl: string, nodeId: string | null, credential: string): Promise<void> {
  const bridge = shell();
  if (bridge) {
    await fromShell(bridge.credential.store(credential));
    return;
  }
  if (nodeId) {
    localStorage.setItem(credentialKey(nodeId), credential);
    localStorage.removeItem(CREDENTIAL_PREFIX + baseUrl);
  } else localStorage.setItem(CREDENTIAL_PREFIX + baseUrl, credential);
}

/**
 * Forgets the stored credential. With `only`, forgets it only while it is still that value: a
 * window whose old credential was refused must not erase the new one another window just stored.
 */
export async function clearCredential(baseUrl: string, nodeId: string | null, only?: string): Promise<void> {
  const current = await readCredential(baseUrl, nodeId);
  if (only !== undefined && current !== null && current !== only) return;
  const bridge = shell();
  if (bridge) await fromShell(bridge.credential.clear()).catch(() => undefined);
  localStorage.removeItem(CREDENTIAL_PREFIX + baseUrl);
  if (nodeId) localStorage.removeItem(credentialKey(nodeId));
}
