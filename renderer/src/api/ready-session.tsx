import { useEffect, useMemo, type ReactNode } from 'react';
import { ApiFailure, createApiClient } from './client';
import { credentialKey, readCredential, storeCredential } from './connection-store';
import { LiveSocket } from './live-socket';
import { RoleProvider } from './device-role';
import { Connectivity, SessionProvider, type Session } from './session';

export type EndReason = 'unauthorized' | 'user';

/**
 * A paired window. A refused credential is not the end by itself: when this device's storage holds
 * a newer credential for the same backend (rotated here or in another tab), the window switches to
 * it; only when there is none does it return to pairing. The pages come from the caller (app.tsx),
 * so the api layer does not reach up into the shell that composes them.
 */
export function ReadySession(props: {
  baseUrl: string;
  nodeId: string | null;
  credential: string;
  onEnd(reason: EndReason): void;
  onCredential(credential: string): void;
  children: ReactNode;
}) {
  const { baseUrl, nodeId, credential, onEnd, onCredential } = props;
  const session = useMemo<Session>(() => {
    // Mutable flags of this session (one object, so the async paths below share them).
    const flags = { ended: false, rotating: false, recovering: false };
    const connectivity = new Connectivity();
    const end = (reason: EndReason) => {
      if (flags.ended) return;
      flags.ended = true;
      socket.stop();
      onEnd(reason);
    };
    const adopt = (next: string) => {
      if (flags.ended) return;
      flags.ended = true;
      socket.stop();
      onCredential(next);
    };
    const recover = async () => {
      if (flags.rotating || flags.recovering || flags.ended) return;
      flags.recovering = true;
      try {
        // A sibling tab may be rotating right now: give it a moment to store the new credential.
        for (const wait of [0, 500, 1500]) {
          await new Promise((r) => setTimeout(r, wait));
          if (flags.ended || flags.rotating) return;
          const stored = await readCredential(baseUrl, nodeId);
          if (stored && stored !== credential) {
            try {
              await createApiClient(baseUrl, stored, () => undefined).get('/api/config/providers');
              return adopt(stored);
            } catch {
              // the stored one is refused too
            }
          }
        }
        end('unauthorized');
      } finally {
        flags.recovering = false;
      }
    };
    const api = createApiClient(
      baseUrl,
      credential,
      () => void recover(),
      (reachable, startedAt) => connectivity.set(!reachable, startedAt),
    );
    // A lost socket may mean a revoked credential or a stopped backend: one cheap call finds out.
    const socket = new LiveSocket(baseUrl, credential, () => void api.get('/api/selfhost/devices').catch(() => undefined));
    socket.onState((s) => {
      if (s.kind === 'open') connectivity.set(false);
    });
    return {
      api,
      socket,
      nodeId,
      connectivity,
      endSession: (reason) => end(reason),
      async rotateCredential() {
        flags.rotating = true;
        try {
          const { credential: next } = await api.post<{ credential: string }>('/api/selfhost/credential/rotate');
          await storeCredential(baseUrl, next);
          adopt(next);
        } catch (err) {
          // The rotation may have happened even if its answer was lost: the stored or the old one decides.
          if (err instanceof ApiFailure && err.status === 401) {
            flags.rotating = false;
            void recover();
          }
          throw err;
        } finally {
          flags.rotating = false;
        }
      },
      async resetPairing() {
        await api.post('/api/selfhost/pairing/reset');
        end('user');
      },
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one session per backend and credential; onEnd/onCredential are the parent's callbacks for that same pair
  }, [baseUrl, nodeId, credential]);

  useEffect(() => {
    session.socket.start();
    return () => session.socket.stop();
  }, [session]);

  // Another tab of this browser rotated the credential of this backend: follow it. (A removal is not
  // followed: a tab clearing a refused credential must not sign out tabs that hold a newer one.)
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === credentialKey(baseUrl) && e.newValue && e.newValue !== credential) onCredential(e.newValue);
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [baseUrl, credential, onCredential]);

  return (
    <SessionProvider session={session}>
      <RoleProvider>{props.children}</RoleProvider>
    </SessionProvider>
  );
}
