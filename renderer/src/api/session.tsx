import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { ConfigResource } from '../../../backend/ws/ws-api.js';
import type { ApiClient } from './client';
import { LiveSocket, type LiveMessage, type SocketState } from './live-socket';

export interface Session {
  api: ApiClient;
  socket: LiveSocket;
  /** The backend's node_id (how this device recognises it at any address), when it reports one. */
  nodeId: string | null;
  /** Forget the credential and go back to pairing (after a 401, or on request). */
  endSession(reason: 'unauthorized' | 'user'): void;
  /**
   * Rotates the credential: this window switches to the new one (and stores it, so tabs sharing this
   * storage follow); a 401 of the old one meanwhile is expected and never ends the session.
   */
  rotateCredential(): Promise<void>;
  /** Unpairs on the backend (a new code is logged there) and returns to the pairing screen. */
  resetPairing(): Promise<void>;
  /** Whether the backend answers; writes are disabled while it does not. */
  connectivity: Connectivity;
}

/** The backend's reachability as the last HTTP call or socket event saw it. */
export class Connectivity {
  offline = false;
  private offlineSince = -Infinity;
  private readonly listeners = new Set<(offline: boolean) => void>();
  /** `startedAt`: when the call that tells started; an answer to a call older than the outage proves nothing. */
  set(offline: boolean, startedAt = performance.now()): void {
    if (offline === this.offline) return;
    if (!offline && startedAt < this.offlineSince) return;
    if (offline) this.offlineSince = performance.now();
    this.offline = offline;
    for (const l of this.listeners) l(offline);
  }
  onChange(listener: (offline: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function useOffline(): boolean {
  const { connectivity } = useSession();
  const [offline, setOffline] = useState(connectivity.offline);
  useEffect(() => connectivity.onChange(setOffline), [connectivity]);
  return offline;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ session, children }: { session: Session; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}

export function useApi(): ApiClient {
  return useSession().api;
}

export function useSocketState(): SocketState {
  const { socket } = useSession();
  const [state, setState] = useState(socket.state);
  useEffect(() => socket.onState(setState), [socket]);
  return state;
}

export function useLiveMessages(listener: (message: LiveMessage) => void): void {
  const { socket } = useSession();
  const ref = useRef(listener);
  useLayoutEffect(() => {
    ref.current = listener;
  });
  useEffect(() => socket.onMessage((m) => ref.current(m)), [socket]);
}

export interface Resource<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): Promise<void>;
}

/** GETs `path` and refetches it whenever the backend announces a change to one of `resources`. */
export function useResource<T>(path: string | null, resources: readonly ConfigResource[]): Resource<T> {
  const api = useApi();
  // Data is kept with the path it belongs to, so a new path never shows the old one's data.
  const [loaded, setLoaded] = useState<{ path: string; value: T }>();
  const data = loaded && loaded.path === path ? loaded.value : undefined;
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(path !== null);
  const latest = useRef(0);

  const reload = useCallback(async () => {
    if (path === null) return;
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const value = await api.get<T>(path);
      if (ticket === latest.current) {
        setLoaded({ path, value });
        setError(undefined);
      }
    } catch (err) {
      if (ticket === latest.current) setError(err as Error);
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, [api, path]);

  useEffect(() => {
    // Started from a microtask, not inside the effect's own pass (no cascading render).
    void Promise.resolve().then(reload);
  }, [reload]);

  const key = resources.join(',');
  useLiveMessages((m) => {
    if (m.type === 'config.changed' && key.split(',').includes(m.resource)) void reload();
  });
  // A reconnect may have missed changes: refetch once the socket is open again.
  const state = useSocketState();
  const wasOpen = useRef(state.kind === 'open');
  useEffect(() => {
    if (state.kind === 'open' && !wasOpen.current) void reload();
    wasOpen.current = state.kind === 'open';
  }, [state.kind, reload]);

  return { data, error, loading, reload };
}
