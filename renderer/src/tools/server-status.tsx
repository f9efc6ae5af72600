import { useEffect } from 'react';
import type { ServerStatus } from '../../../backend/mcp/mcp-status-api.js';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { Badge, type Tone } from '../ui/controls';

export type StatusAnswer = { workspace_id: string | null; servers: ServerStatus[] };

const POLL_MS = 3000;

/** The servers' running state for the page's scope, refreshed while the page is open. */
export function useServerStatus(workspaceId: string | null) {
  const status = useResource<StatusAnswer>(`/api/mcp/status${workspaceId ? `?workspace=${encodeURIComponent(workspaceId)}` : ''}`, ['mcp']);
  const { reload } = status;
  useEffect(() => {
    // States change without a config change (started by a turn, failed, idle-stopped, signed in).
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return status;
}

const TONES: Record<ServerStatus['state'], Tone> = { ready: 'green', starting: 'blue', stopped: 'gray', failed: 'red' };
const STATE_KEYS = {
  ready: 'mcp.stateReady',
  starting: 'mcp.stateStarting',
  stopped: 'mcp.stateStopped',
  failed: 'mcp.stateFailed',
} as const;

/** State badge, the failure in words, and the actions it allows (connect now, sign in, sign out). */
export function StatusCell(props: { status?: ServerStatus; workspaceId: string | null; onChanged(): void }) {
  const t = useT();
  const api = useApi();
  const s = props.status;
  if (!s) return null;
  if (s.disabled) return <Badge tone="gray">{t('common.disabled')}</Badge>;
  const connect = async () => {
    await api
      .post('/api/mcp/status/check', { name: s.name, ...(props.workspaceId ? { workspace: props.workspaceId } : {}) })
      .catch(() => {});
    props.onChanged();
  };
  return (
    <div className="server-status">
      <Badge tone={s.auth_required ? 'amber' : TONES[s.state]}>{s.auth_required ? t('mcp.stateAuth') : t(STATE_KEYS[s.state])}</Badge>
      {s.state === 'ready' && <span className="muted small"> {t('mcp.toolCount', { count: s.tools.length })}</span>}
      {s.error && <p className="server-error">{s.error}</p>}
      <div className="button-row compact">
        {s.auth_required && s.authorize_url ? (
          <a className="btn btn-small btn-primary" href={s.authorize_url} target="_blank" rel="noreferrer">
            {t('mcp.signIn')}
          </a>
        ) : (
          s.state !== 'ready' &&
          s.state !== 'starting' && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void connect()}
              aria-label={t('mcp.connectNamed', { name: s.name })}
            >
              {t('mcp.connect')}
            </button>
          )
        )}
        {s.signed_in && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() =>
              void api
                .post('/api/mcp/oauth/sign-out', { name: s.name, ...(props.workspaceId ? { workspace: props.workspaceId } : {}) })
                .finally(props.onChanged)
            }
          >
            {t('mcp.signOut')}
          </button>
        )}
      </div>
    </div>
  );
}
