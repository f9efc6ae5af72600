import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { onCommand, type AppCommand } from '../nav/app-commands';
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
import { useSessions } from './use-sessions';
import './chat.css';
import './branch.css';

export const WS_KEY = 'service.chat.workspace';
export const sessionKey = (ws: string) => `service.chat.session.${ws}`;
/** The width below which chat.css shows the list and the conversation as separate views. */
const PHONE = '(max-width: 600px)';

function usePhoneWidth(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = window.matchMedia(PHONE);
      query.addEventListener('change', onChange);
      return () => query.removeEventListener('change', onChange);
    },
    () => window.matchMedia(PHONE).matches,
  );
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
  const { sessions, hasMore, error, reload, more, ensure } = useSessions(wsId);
  const [chosen, setChosen] = useState<{ ws: string; id: string | null } | null>(null);
  const chosenSession = chosen && chosen.ws === wsId ? chosen.id : wsId ? localStorage.getItem(sessionKey(wsId)) : null;
  const setChosenSession = (id: string | null, ws = wsId) => ws && setChosen({ ws, id });
  const [jump, setJump] = useState<{ messageId: string; nonce: number } | null>(null);
  const [createError, setCreateError] = useState<unknown>();
  const [importing, setImporting] = useState(false);
  /** Phone width: the session list and the conversation are separate views (CSS shows one). */
  const [phoneView, setPhoneView] = useState<'list' | 'chat' | null>(null);
  const phone = usePhoneWidth();

  useEffect(preloadMarkdown, []);

  const selected = sessions?.find((s) => s.id === chosenSession) ?? sessions?.[0] ?? null;
  // The chosen chat may be older than the pages loaded so far (a search hit, the one open last time).
  const missing = !!sessions && !!chosenSession && !sessions.some((s) => s.id === chosenSession);
  useEffect(() => {
    if (missing && chosenSession) void ensure(chosenSession);
  }, [missing, chosenSession, ensure]);

  const selectWorkspace = (id: string) => {
    localStorage.setItem(WS_KEY, id);
    setChosenWs(id);
    setJump(null);
  };
  const selectSession = (id: string | null) => {
    if (wsId && id) localStorage.setItem(sessionKey(wsId), id);
    setChosenSession(id);
    setJump(null);
    if (id) setPhoneView('chat');
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
      setPhoneView('chat');
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
    setJump(hit.message_id ? { messageId: hit.message_id, nonce: Date.now() } : null);
    setPhoneView('chat');
  };

  // Commands from the keyboard and the palette (Ctrl+N, Ctrl+Shift+F, a chat picked in the palette).
  const latest = useRef({ wsId, newChat, openHit });
  useEffect(() => {
    latest.current = { wsId, newChat, openHit };
  });
  useEffect(() => {
    const run = (command: AppCommand, attempt = 0): void => {
      const now = latest.current;
      switch (command.type) {
        case 'focus-search':
          document.querySelector<HTMLInputElement>('.chat-search input')?.focus();
          return;
        case 'open-session':
          now.openHit({ workspace_id: command.workspaceId, session_id: command.sessionId, message_id: '', snippet: '' } as SearchHit);
          return;
        case 'new-chat':
          // Just navigated here: the workspaces may still be loading.
          if (now.wsId) void now.newChat();
          else if (attempt < 50) setTimeout(() => run(command, attempt + 1), 100);
          return;
      }
    };
    return onCommand((command) => run(command));
  }, []);

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

  // Until the user picks, a phone opens on the list (with "New chat") once chat is set up, else on the setup steps.
  const view = phoneView ?? (workspace && ready ? 'list' : 'chat');
  return (
    <div className="chat-page" data-view={view}>
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
            hasMore={hasMore}
            onMore={() => void more()}
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
      <section className="chat-main">
        <div className="chat-back">
          {/* The page's heading while the list (which holds the visible one) is hidden on a phone. */}
          {phone && view === 'chat' && <h1 className="sr-only">{t('chat.title')}</h1>}
          <button type="button" className="btn btn-small" onClick={() => setPhoneView('list')}>
            <span aria-hidden="true">‹ </span>
            {t('chat.sessions')}
          </button>
        </div>
        {main}
      </section>
    </div>
  );
}
