import { useCallback, useEffect, useId, useState } from 'react';
import { useApi, useLiveMessages, useResource } from '../api/session';
import { listOf, path, type WorkspaceEntry } from '../api/resources';
import { useT } from '../i18n/i18n';
import { ErrorBanner } from '../ui/controls';
import { asTurnFrame, chatPath, type SearchHit, type SessionSummary } from './chat-types';
import { ChatSearch } from './chat-search';
import { NoModel, NoProvider, NoWorkspace } from './chat-setup';
import { ConversationView } from './conversation-view';
import { ImportDialog } from './import-dialog';
import { useModelInfo } from './model-info';
import { preloadMarkdown } from './reply-view';
import { SessionList, sessionTitle } from './session-list';
import './chat.css';
import './branch.css';

const WS_KEY = 'service.chat.workspace';
const sessionKey = (ws: string) => `service.chat.session.${ws}`;

function useSessions(workspaceId: string | null) {
  const api = useApi();
  // Kept with the workspace they belong to: another workspace's list never shows while loading.
  const [loaded, setLoaded] = useState<{ ws: string; sessions: SessionSummary[] | null; error?: unknown } | null>(null);
  const reload = useCallback(async () => {
    if (!workspaceId) return;
    try {
      const r = await api.get<{ sessions: SessionSummary[] }>(chatPath.sessions(workspaceId));
      setLoaded({ ws: workspaceId, sessions: r.sessions ?? [] });
    } catch (err) {
      setLoaded((prev) => ({ ws: workspaceId, sessions: prev?.ws === workspaceId ? prev.sessions : null, error: err }));
    }
  }, [api, workspaceId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  const mine = loaded && loaded.ws === workspaceId ? loaded : null;
  return { sessions: mine?.sessions ?? null, error: mine?.error, reload };
}

export function ChatPage() {
  const t = useT();
  const api = useApi();
  const pickerId = useId();
  const workspaces = useResource<unknown>(path.workspaces, ['workspaces']);
  const list = listOf<WorkspaceEntry>(workspaces.data, 'workspaces');
  const [chosenWs, setChosenWs] = useState<string | null>(() => localStorage.getItem(WS_KEY));
  const workspace = list.find((w) => w.id === chosenWs) ?? list[0];
  const wsId = workspace?.id ?? null;
  const info = useModelInfo(workspace);
  const { sessions, error, reload } = useSessions(wsId);
  const [chosen, setChosen] = useState<{ ws: string; id: string | null } | null>(null);
  const chosenSession = chosen && chosen.ws === wsId ? chosen.id : wsId ? localStorage.getItem(sessionKey(wsId)) : null;
  const setChosenSession = (id: string | null, ws = wsId) => ws && setChosen({ ws, id });
  const [jump, setJump] = useState<{ messageId: string; nonce: number } | null>(null);
  const [createError, setCreateError] = useState<unknown>();
  const [importing, setImporting] = useState(false);

  useEffect(preloadMarkdown, []);

  const selected = sessions?.find((s) => s.id === chosenSession) ?? sessions?.[0] ?? null;

  const selectWorkspace = (id: string) => {
    localStorage.setItem(WS_KEY, id);
    setChosenWs(id);
    setJump(null);
  };
  const selectSession = (id: string | null) => {
    if (wsId && id) localStorage.setItem(sessionKey(wsId), id);
    setChosenSession(id);
    setJump(null);
  };

  // Titles and order change when a turn ends anywhere (another window too).
  useLiveMessages((m) => {
    const frame = asTurnFrame(m);
    if (frame && frame.workspace_id === wsId && (frame.type === 'turn.completed' || frame.type === 'turn.failed')) void reload();
  });

  const newChat = async () => {
    if (!wsId) return;
    setCreateError(undefined);
    try {
      const s = await api.post<SessionSummary>(chatPath.sessions(wsId), {});
      localStorage.setItem(sessionKey(wsId), s.id);
      setChosenSession(s.id);
      setJump(null);
      await reload();
    } catch (err) {
      setCreateError(err);
    }
  };

  const openHit = (hit: SearchHit) => {
    if (hit.workspace_id !== wsId) {
      localStorage.setItem(WS_KEY, hit.workspace_id);
      setChosenWs(hit.workspace_id);
    }
    localStorage.setItem(sessionKey(hit.workspace_id), hit.session_id);
    setChosenSession(hit.session_id, hit.workspace_id);
    setJump({ messageId: hit.message_id, nonce: Date.now() });
  };

  const ready = !info.loading && !info.noProvider && info.model !== null;
  let main;
  if (workspaces.loading && !workspaces.data) main = <p className="muted">{t('common.loading')}</p>;
  else if (!workspace) main = <NoWorkspace onCreated={(w) => void workspaces.reload().then(() => selectWorkspace(w.id))} />;
  else if (info.noProvider) main = <NoProvider />;
  else if (!info.loading && info.model === null) main = <NoModel info={info} />;
  else if (selected && ready)
    main = (
      <ConversationView
        key={`${wsId}/${selected.id}`}
        workspaceId={workspace.id}
        sessionId={selected.id}
        title={sessionTitle(selected, t('chat.untitled'))}
        info={info}
        jump={selected.id === chosenSession ? jump : null}
        onTurnEnded={() => void reload()}
        onForked={(sid) => {
          void reload().then(() => selectSession(sid));
        }}
      />
    );
  else if (sessions && sessions.length === 0 && ready)
    main = (
      <div className="chat-start">
        <p className="muted">{t('chat.pickSession')}</p>
        <button type="button" className="btn btn-primary" onClick={() => void newChat()}>
          {t('chat.newChat')}
        </button>
      </div>
    );
  else main = <p className="muted">{t('common.loading')}</p>;

  return (
    <div className="chat-page">
      <aside className="chat-side" aria-label={t('chat.sessions')}>
        <h1 className="chat-h1">{t('chat.title')}</h1>
        {list.length > 0 && (
          <div className="chat-ws">
            <label htmlFor={pickerId}>{t('chat.workspace')}</label>
            <select id={pickerId} value={wsId ?? ''} onChange={(e) => selectWorkspace(e.target.value)}>
              {list.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="chat-side-actions">
          <button type="button" className="btn btn-primary" disabled={!wsId} onClick={() => void newChat()}>
            {t('chat.newChat')}
          </button>
          <button type="button" className="btn" disabled={!wsId} onClick={() => setImporting(true)}>
            {t('chat.import')}
          </button>
        </div>
        {wsId && (
          <ImportDialog
            workspaceId={wsId}
            open={importing}
            onClose={() => setImporting(false)}
            onImported={(first) => void reload().then(() => first && selectSession(first))}
          />
        )}
        <ErrorBanner error={createError ?? error} />
        <ChatSearch onOpen={openHit} titleOf={(hit) => sessions?.find((s) => s.id === hit.session_id)?.title ?? undefined} />
        {wsId && sessions && (
          <SessionList
            workspaceId={wsId}
            sessions={sessions}
            selected={selected?.id ?? null}
            onSelect={selectSession}
            onChanged={() => void reload()}
            onDeleted={(id) => {
              if (id === selected?.id) selectSession(null);
              void reload();
            }}
          />
        )}
      </aside>
      <section className="chat-main">{main}</section>
    </div>
  );
}
