import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiFailure, createApiClient } from './api/client';
import { clearCredential, initialBackendUrl, readCredential, rememberBackendUrl, storeCredential } from './api/connection-store';
import { LiveSocket } from './api/live-socket';
import { SessionProvider, type Session } from './api/session';
import { PairingScreen } from './connect/pairing-screen';
import { useT } from './i18n/i18n';
import { Pages } from './shell/pages';
import type { BackendState } from './platform/shell-bridge';

type Phase =
  | { kind: 'starting' }
  | { kind: 'pairing'; baseUrl: string; notice?: 'unauthorized' }
  | { kind: 'ready'; baseUrl: string; credential: string };

export function App() {
  const t = useT();
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' });
  const [shellState, setShellState] = useState<BackendState | null>(null);

  /** With a stored credential, one authenticated call tells whether it still works. */
  const connect = useCallback(async (baseUrl: string) => {
    const credential = await readCredential(baseUrl);
    if (!credential) return setPhase({ kind: 'pairing', baseUrl });
    try {
      await createApiClient(baseUrl, credential, () => undefined).get('/api/config/providers');
      setPhase({ kind: 'ready', baseUrl, credential });
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 401) {
        await clearCredential(baseUrl);
        return setPhase({ kind: 'pairing', baseUrl, notice: 'unauthorized' });
      }
      // Unreachable or failing: the pairing screen shows why and offers another URL.
      setPhase({ kind: 'pairing', baseUrl });
    }
  }, []);

  useEffect(() => {
    void initialBackendUrl(setShellState).then(connect);
  }, [connect]);

  if (phase.kind === 'starting') {
    // In the app the shell may still be starting (or restarting) its backend.
    const detail =
      shellState?.status === 'failed'
        ? t('shell.failed', { reason: shellState.reason })
        : shellState && shellState.status !== 'ready'
          ? t('shell.starting', { status: shellState.status })
          : t('common.loading');
    return (
      <div className="splash" role="status">
        {detail}
      </div>
    );
  }
  if (phase.kind === 'pairing') {
    return (
      <PairingScreen
        key={phase.baseUrl}
        baseUrl={phase.baseUrl}
        notice={phase.notice}
        onChangeUrl={(url) => {
          rememberBackendUrl(url);
          void connect(url);
        }}
        onPaired={async ({ credential }) => {
          await storeCredential(phase.baseUrl, credential);
          setPhase({ kind: 'ready', baseUrl: phase.baseUrl, credential });
        }}
      />
    );
  }
  return (
    <ReadySession
      key={phase.credential}
      baseUrl={phase.baseUrl}
      credential={phase.credential}
      onEnd={async (reason) => {
        await clearCredential(phase.baseUrl);
        setPhase({ kind: 'pairing', baseUrl: phase.baseUrl, notice: reason === 'unauthorized' ? 'unauthorized' : undefined });
      }}
      onCredential={async (credential) => {
        await storeCredential(phase.baseUrl, credential);
        setPhase({ kind: 'ready', baseUrl: phase.baseUrl, credential });
      }}
    />
  );
}

function ReadySession(props: {
  baseUrl: string;
  credential: string;
  onEnd(reason: 'unauthorized' | 'user'): void;
  onCredential(c: string): Promise<void>;
}) {
  const { baseUrl, credential, onEnd, onCredential } = props;
  const session = useMemo<Session>(() => {
    let ended = false;
    const end = (reason: 'unauthorized' | 'user') => {
      if (ended) return;
      ended = true;
      socket.stop();
      onEnd(reason);
    };
    const api = createApiClient(baseUrl, credential, () => end('unauthorized'));
    // A lost socket may mean a revoked credential: one cheap authenticated call finds out.
    const socket = new LiveSocket(baseUrl, credential, () => void api.get('/api/logs?since=999999999').catch(() => undefined));
    return { api, socket, endSession: end, replaceCredential: onCredential };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [baseUrl, credential]);

  useEffect(() => {
    session.socket.start();
    return () => session.socket.stop();
  }, [session]);

  return (
    <SessionProvider session={session}>
      <Pages baseUrl={baseUrl} />
    </SessionProvider>
  );
}
