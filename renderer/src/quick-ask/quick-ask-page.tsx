import { useState, type FormEvent } from 'react';
import { useApi, useResource } from '../api/session';
import { listOf, path, type WorkspaceEntry } from '../api/resources';
import { chatPath, type SessionSummary } from '../chat/chat-types';
import { sessionKey, WS_KEY } from '../chat/chat-page';
import { ConversationView } from '../chat/conversation-view';
import { useModelInfo } from '../chat/model-info';
import '../chat/chat.css';
import { useT } from '../i18n/i18n';
import { shell } from '../platform/shell-bridge';
import { ErrorBanner } from '../ui/controls';

export const QUICK_ASK_HASH = '#/quick-ask';

export function isQuickAskWindow(): boolean {
  return typeof location !== 'undefined' && location.hash === QUICK_ASK_HASH;
}

/**
 * The quick-ask window (global shortcut, tray): one question to the last used workspace, the answer
 * streamed here, follow-ups in the same chat, and "Open in the main window" to carry on there.
 */
export function QuickAskPage() {
  const t = useT();
  const api = useApi();
  const workspaces = useResource<unknown>(path.workspaces, ['workspaces']);
  const list = listOf<WorkspaceEntry>(workspaces.data, 'workspaces');
  const workspace = list.find((w) => w.id === localStorage.getItem(WS_KEY)) ?? list[0];
  const info = useModelInfo(workspace);
  const [question, setQuestion] = useState('');
  const [session, setSession] = useState<{ ws: string; id: string; title: string } | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const ask = async (e?: FormEvent) => {
    e?.preventDefault();
    const text = question.trim();
    if (!text || !workspace || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.post<SessionSummary>(chatPath.sessions(workspace.id), {});
      await api.post(chatPath.messages(workspace.id, created.id), { content: text });
      localStorage.setItem(sessionKey(workspace.id), created.id);
      setSession({ ws: workspace.id, id: created.id, title: text.slice(0, 80) });
      setQuestion('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const openInMain = () => {
    if (!session) return;
    const app = shell();
    if (app) void app.desktop.openInMain(session.ws, session.id);
    else {
      // A browser tab: the chat page opens this chat (chosen above) in place of the quick-ask page.
      location.hash = '#/chat';
      location.reload();
    }
  };

  return (
    <main className="quick-ask" id="main">
      <header className="quick-ask-head">
        <h1>{t('quick.title')}</h1>
        {workspace && <span className="muted small">{t('quick.in', { workspace: workspace.name })}</span>}
        {session && (
          <button type="button" className="btn btn-small" onClick={openInMain}>
            {t('quick.openMain')}
          </button>
        )}
      </header>
      <ErrorBanner error={error ?? workspaces.error} />
      {!workspace && !workspaces.loading && <p className="muted">{t('quick.noWorkspace')}</p>}
      {session ? (
        <div className="quick-ask-chat">
          <ConversationView
            key={session.id}
            workspaceId={session.ws}
            sessionId={session.id}
            title={session.title}
            info={info}
            jump={null}
            onTurnEnded={() => undefined}
            // A fork goes on in this window, as a new chat.
            onForked={(id) => setSession({ ws: session.ws, id, title: `${session.title} (fork)` })}
          />
        </div>
      ) : (
        <form className="quick-ask-form" onSubmit={(e) => void ask(e)}>
          <label htmlFor="quick-ask-text" className="sr-only">
            {t('quick.question')}
          </label>
          <textarea
            id="quick-ask-text"
            rows={4}
            autoFocus
            value={question}
            placeholder={t('quick.placeholder')}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) void ask();
              if (e.key === 'Enter' && !e.shiftKey) e.preventDefault();
            }}
          />
          <button type="submit" className="btn btn-primary" disabled={busy || !workspace || !question.trim()}>
            {t('quick.ask')}
          </button>
        </form>
      )}
    </main>
  );
}
