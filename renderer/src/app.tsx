import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import type { PairingStatus } from '../../backend/pairing/pairing-api.js';
import { ApiFailure, createApiClient, joinUrl, requestJson } from './api/client';
import type { Refusal } from '../../app/ipc/contract.js';
import {
  activeRemote,
  clearCredential,
  initialBackendUrl,
  readCredential,
  rememberBackendUrl,
  storeCredential,
} from './api/connection-store';
import { ReadySession } from './api/ready-session';
import { PairingScreen } from './connect/pairing-screen';
import { useT } from './i18n/i18n';
import type { BackendState } from './platform/shell-bridge';
import { RemoteHost } from './remote/remote-host';
import { RemoteRefusedScreen } from './remote/remote-refused';
import { Pages } from './shell/pages';

type Phase =
  | { kind: 'starting' }
  | { kind: 'pairing'; baseUrl: string; notice?: 'unauthorized' }
  | { kind: 'ready'; baseUrl: string; nodeId: string | null; credential: string };

/** The backend's node_id from the public status (null when it is unreachable or too old to say). */
async function fetchNodeId(baseUrl: string): Promise<string | null> {
  try {
    const status = await requestJson<Partial<PairingStatus>>(joinUrl(baseUrl, '/api/pairing/status'), 'GET', undefined);
    return typeof status?.node_id === 'string' && status.node_id ? status.node_id : null;
  } catch {
    return null;
  }
}

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' });
  const [shellState, setShellState] = useState<BackendState | null>(null);
  // Desktop app: a remote backend in use (its pairing screen differs), or its certificate refused.
  const [remote, setRemote] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  /** With a stored credential for this backend (by its origin), one authenticated call tells whether it still works. */
  const connect = useCallback(async (baseUrl: string) => {
    const nodeId = await fetchNodeId(baseUrl);
    const credential = await readCredential(baseUrl, nodeId);
    if (!credential) return setPhase({ kind: 'pairing', baseUrl });
    try {
      await createApiClient(baseUrl, credential, () => undefined).get('/api/config/providers');
      setPhase({ kind: 'ready', baseUrl, nodeId, credential });
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 401) {
        await clearCredential(baseUrl, credential);
        return setPhase({ kind: 'pairing', baseUrl, notice: 'unauthorized' });
      }
      // Unreachable or failing: the pairing screen shows why and offers another URL.
      setPhase({ kind: 'pairing', baseUrl });
    }
  }, []);

  useEffect(() => {
    void (async () => {
      // A pinned remote is checked before anything is sent to it.
      const active = await activeRemote();
      if (active?.check === 'refused') return setRefusal(active.refusal);
      if (active) {
        setRemote(true);
        return connect(active.remote.origin);
      }
      await connect(await initialBackendUrl(setShellState));
    })();
  }, [connect]);

  if (refusal) return <RemoteRefusedScreen refusal={refusal} />;
  return (
    <>
      <RemoteHost onRefused={setRefusal} />
      <AppPhase phase={phase} shellState={shellState} remote={remote} setPhase={setPhase} connect={connect} />
    </>
  );
}

function AppPhase({
  phase,
  shellState,
  remote,
  setPhase,
  connect,
}: {
  phase: Phase;
  shellState: BackendState | null;
  remote: boolean;
  setPhase: Dispatch<SetStateAction<Phase>>;
  connect(baseUrl: string): Promise<void>;
}) {
  const t = useT();

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
        remote={remote}
        onChangeUrl={(url) => {
          rememberBackendUrl(url);
          void connect(url);
        }}
        onPaired={({ credential, node_id }) => {
          void storeCredential(phase.baseUrl, credential).then(() =>
            setPhase({ kind: 'ready', baseUrl: phase.baseUrl, nodeId: node_id || null, credential }),
          );
        }}
      />
    );
  }
  const { baseUrl, nodeId, credential } = phase;
  // Only the session that is current may change the phase (an old one's late 401 must not).
  const current = (p: Phase) => p.kind === 'ready' && p.credential === credential;
  return (
    <ReadySession
      key={credential}
      baseUrl={baseUrl}
      nodeId={nodeId}
      credential={credential}
      onEnd={(reason) => {
        // After a 401, forget the credential only if it is still the refused one.
        void clearCredential(baseUrl, reason === 'unauthorized' ? credential : undefined).then(() =>
          setPhase((p) => (current(p) ? { kind: 'pairing', baseUrl, notice: reason === 'unauthorized' ? 'unauthorized' : undefined } : p)),
        );
      }}
      onCredential={(next) => setPhase((p) => (current(p) ? { kind: 'ready', baseUrl, nodeId, credential: next } : p))}
    >
      <Pages baseUrl={baseUrl} />
    </ReadySession>
  );
}
