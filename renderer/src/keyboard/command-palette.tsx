import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { WorkspaceEntry } from '../api/resources';
import { listOf, path } from '../api/resources';
import { useApi } from '../api/session';
import { chatPath, type SessionSummary } from '../chat/chat-types';
import { useT } from '../i18n/i18n';
import { ROUTE_LABELS, ROUTES, type Route } from '../nav/routes';
import { setThemeChoice, type ThemeChoice } from '../theme/theme';
import { Dialog } from '../ui/controls';
import { sendCommand } from '../nav/app-commands';

interface Item {
  id: string;
  label: string;
  group: string;
  run(): void;
}

/** At most this many workspaces are listed for session titles (each is one request). */
const MAX_WORKSPACES = 30;

interface SessionRef {
  workspace: WorkspaceEntry;
  session: SessionSummary;
}

/** Every chat of every workspace, fetched when the palette opens. */
function useAllSessions(open: boolean): SessionRef[] {
  const api = useApi();
  const [refs, setRefs] = useState<SessionRef[]>([]);
  useEffect(() => {
    if (!open) return;
    let stale = false;
    void (async () => {
      const workspaces = listOf<WorkspaceEntry>(await api.get(path.workspaces).catch(() => []), 'workspaces').slice(0, MAX_WORKSPACES);
      const lists = await Promise.all(
        workspaces.map((w) =>
          api.get<{ sessions: SessionSummary[] }>(chatPath.sessions(w.id)).then(
            (r) => (r.sessions ?? []).map((session) => ({ workspace: w, session })),
            () => [],
          ),
        ),
      );
      if (!stale) setRefs(lists.flat());
    })();
    return () => {
      stale = true;
    };
  }, [api, open]);
  return refs;
}

/** Ctrl/Cmd+K: chats across workspaces by title, pages and actions, filtered as the user types. */
export function CommandPalette(props: { open: boolean; onClose(): void; navigate(route: Route): void; openSheet(): void }) {
  const t = useT();
  const ids = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const sessions = useAllSessions(props.open);
  const listRef = useRef<HTMLUListElement>(null);

  const items = useMemo<Item[]>(() => {
    const go = (route: Route) => () => props.navigate(route);
    const theme = (choice: ThemeChoice) => () => setThemeChoice(choice);
    const action = t('palette.group.action');
    const page = t('palette.group.page');
    return [
      {
        id: 'a:new',
        label: t('keys.newChat'),
        group: action,
        run: () => {
          props.navigate('chat');
          sendCommand({ type: 'new-chat' });
        },
      },
      {
        id: 'a:search',
        label: t('keys.search'),
        group: action,
        run: () => {
          props.navigate('chat');
          sendCommand({ type: 'focus-search' });
        },
      },
      { id: 'a:keys', label: t('keys.title'), group: action, run: props.openSheet },
      ...(['system', 'light', 'dark'] as const).map((c) => ({
        id: `a:theme-${c}`,
        label: t('palette.themeTo', { theme: t(`theme.${c}`) }),
        group: action,
        run: theme(c),
      })),
      ...ROUTES.map((r) => ({ id: `p:${r}`, label: t(ROUTE_LABELS[r]), group: page, run: go(r) })),
      ...sessions.map(({ workspace, session }) => ({
        id: `s:${workspace.id}/${session.id}`,
        label: session.title?.trim() || t('chat.untitled'),
        group: t('palette.group.session', { workspace: workspace.name }),
        run: () => {
          props.navigate('chat');
          sendCommand({ type: 'open-session', workspaceId: workspace.id, sessionId: session.id });
        },
      })),
    ];
  }, [props, sessions, t]);

  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = items.filter((i) => words.every((w) => `${i.label} ${i.group}`.toLowerCase().includes(w))).slice(0, 60);
  const current = Math.min(active, Math.max(shown.length - 1, 0));

  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [current]);

  const close = () => {
    setQuery('');
    setActive(0);
    props.onClose();
  };
  const choose = (item: Item | undefined) => {
    if (!item) return;
    close();
    item.run();
  };

  return (
    <Dialog title={t('palette.title')} open={props.open} onClose={close}>
      <div className="dialog-body palette">
        <input
          className="palette-input"
          role="combobox"
          aria-expanded="true"
          aria-controls={`${ids}-list`}
          aria-activedescendant={shown.length ? `${ids}-${current}` : undefined}
          aria-label={t('palette.placeholder')}
          placeholder={t('palette.placeholder')}
          value={query}
          autoFocus
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              const step = e.key === 'ArrowDown' ? 1 : -1;
              setActive((current + step + shown.length) % Math.max(shown.length, 1));
            } else if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
              e.preventDefault();
              choose(shown[current]);
            }
          }}
        />
        {shown.length === 0 ? (
          <p className="muted palette-empty">{t('palette.empty')}</p>
        ) : (
          <ul className="palette-list" role="listbox" id={`${ids}-list`} aria-label={t('palette.results')} ref={listRef}>
            {shown.map((item, i) => (
              <li
                key={item.id}
                id={`${ids}-${i}`}
                role="option"
                aria-selected={i === current}
                className={i === current ? 'palette-item active' : 'palette-item'}
                onMouseMove={() => setActive(i)}
                onClick={() => choose(item)}
              >
                <span className="palette-label">{item.label}</span>
                <span className="palette-group">{item.group}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
