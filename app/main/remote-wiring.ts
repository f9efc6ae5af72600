import { session, type BrowserWindow } from 'electron';
import os from 'node:os';
import { EVENTS, INVOKE, type Refusal } from '../ipc/contract.js';
import { fingerprintOfPem, type PinBook } from '../remote/cert-pinning.js';
import { LOCAL, RemoteBook } from '../remote/remote-book.js';
import { RemoteBackends } from '../remote/remote-backends.js';
import { credentialFiles, safeStorageCipher } from './credential-store.js';
import { handle } from './ipc-handlers.js';

export interface Remotes {
  /** Null when the book file is damaged: the app then works with the local backend only. */
  backends: RemoteBackends | null;
  book(): RemoteBook | undefined;
  activeOrigin(): string | null;
  /** File → "Use the Local Backend". */
  useLocal(): Promise<void>;
}

/**
 * Electron glue for "Connect to another backend…" (the logic is in app/remote/): opens the book,
 * answers Chromium's certificate check from the pins, and registers the `remote:*` channels.
 */
export async function setUpRemotes(deps: {
  userData: string;
  window: () => BrowserWindow | undefined;
  log: (line: string) => void;
}): Promise<Remotes> {
  let backends: RemoteBackends | null = null;
  let bookError: string | null = null;
  try {
    const book = await RemoteBook.open(credentialFiles(deps.userData).remotes, safeStorageCipher);
    backends = new RemoteBackends(book, `Desktop app (${os.hostname()})`);
  } catch (err) {
    bookError = (err as Error).message;
    deps.log(`remote backends unavailable: ${bookError}`);
  }
  const reload = () => {
    const window = deps.window();
    // After the IPC answer has gone out: the page that asked is the one being replaced.
    if (window && !window.isDestroyed()) setImmediate(() => window.webContents.reload());
  };
  const send = (refusal: Refusal) => {
    const window = deps.window();
    if (window && !window.isDestroyed()) window.webContents.send(EVENTS.remoteRefused, refusal);
  };

  // Pins change only through this module: rebuilt after each change, not per handshake.
  let pins: PinBook | undefined = backends?.book.pins();
  const refreshPins = () => (pins = backends?.book.pins());
  const refused = new Set<string>();
  session.defaultSession.setCertificateVerifyProc((request, callback) => {
    const verdict = pins ? pins.chromiumVerdict(request.hostname, request.certificate.data) : -3;
    if (verdict === -2 && backends) {
      const presented = fingerprintOfPem(request.certificate.data);
      const host = request.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      const remote = backends.book.list().find((r) => new URL(r.origin).hostname.replace(/^\[|\]$/g, '') === host);
      if (remote && !refused.has(presented)) {
        refused.add(presented);
        deps.log(`refused ${remote.origin}: certificate ${presented} is not the pinned ${remote.fingerprint}`);
        send(backends.refusal(remote, presented));
      }
    }
    callback(verdict);
  });

  const need = (): RemoteBackends => {
    if (!backends) throw new Error(`the list of remote backends cannot be read: ${bookError}`);
    return backends;
  };
  handle(INVOKE.remoteState, () => (backends ? backends.state() : { active: { kind: 'local' as const }, remotes: [] }));
  handle(INVOKE.remoteProbe, ({ url, allow_insecure }) => need().probe(url, allow_insecure));
  handle(INVOKE.remotePair, async (input) => {
    const outcome = await need().pair(input);
    refreshPins();
    return outcome;
  });
  handle(INVOKE.remoteUse, async ({ target }) => {
    await need().use(target);
    refused.clear();
    reload();
    return null;
  });
  // No reload: re-pairing forgets first and then goes through the flow in the same page.
  handle(INVOKE.remoteForget, async ({ origin }) => {
    await need().forget(origin);
    refreshPins();
    refused.clear();
    return need().state();
  });

  return {
    backends,
    book: () => backends?.book,
    activeOrigin: () => backends?.activeOrigin() ?? null,
    useLocal: async () => {
      if (!backends || backends.activeOrigin() === null) return;
      await backends.use(LOCAL);
      reload();
    },
  };
}
