import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { listOf } from '../api/resources';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { kbPath, type KnowledgeBase } from './knowledge-client';

export type KbRef = Pick<KnowledgeBase, 'id' | 'name'>;

/** What `#query` at the end of the composer's text looks for (a `#` at the start or after a space), or null. */
export function hashQuery(text: string): { query: string; start: number } | null {
  const m = /(^|\s)#([^\s#]*)$/.exec(text);
  return m ? { query: m[2].toLowerCase(), start: m.index + m[1].length } : null;
}

/**
 * The composer's `#` picker (DESIGN 13): typing `#` lists the knowledge bases; picking one adds it
 * as a chip to this message and takes the `#query` out of the text. The list is fetched when the
 * menu first opens. `keyDown` returns true when it used the key (arrows, Enter, Tab, Escape).
 */
export function useKbMention(text: string, setText: (t: string) => void) {
  const api = useApi();
  const [all, setAll] = useState<KnowledgeBase[] | null>(null);
  const [error, setError] = useState(false);
  const [chosen, setChosen] = useState<KbRef[]>([]);
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<string | null>(null);
  const loading = useRef(false);
  const found = dismissedAt === text ? null : hashQuery(text);
  const items =
    found && all ? all.filter((kb) => !chosen.some((c) => c.id === kb.id) && kb.name.toLowerCase().includes(found.query)).slice(0, 12) : [];

  function load() {
    if (loading.current) return;
    loading.current = true;
    api.get<unknown>(kbPath.list).then(
      (data) => {
        setAll(listOf<KnowledgeBase>(data, 'knowledge_bases'));
        setError(false);
        loading.current = false;
      },
      () => {
        setError(true);
        loading.current = false;
      },
    );
  }
  const open = found !== null;
  useEffect(() => {
    // Asked each time the menu opens: a knowledge base made meanwhile is offered too.
    if (open) load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `load` is guarded by its ref
  }, [open]);

  const pick = (kb: KnowledgeBase) => {
    if (!found) return;
    setChosen((list) => [...list, { id: kb.id, name: kb.name }]);
    setText(text.slice(0, found.start));
    setActive(0);
  };
  const keyDown = (e: KeyboardEvent): boolean => {
    if (!found) return false;
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissedAt(text);
      return true;
    }
    if (items.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      e.preventDefault();
      pick(items[Math.min(active, items.length - 1)]);
      return true;
    }
    return false;
  };
  return {
    open,
    /** Shown while loading, with matches, or for a bare `#` (saying there is none); `issue #12` stays quiet. */
    visible: open && (all === null || error || items.length > 0 || found?.query === ''),
    items,
    active: Math.min(active, Math.max(0, items.length - 1)),
    loading: found !== null && all === null && !error,
    error,
    chosen,
    pick,
    keyDown,
    remove: (id: string) => setChosen((list) => list.filter((c) => c.id !== id)),
    clear: () => setChosen([]),
    /** Reset the highlighted entry when the query changes. */
    typed: () => setActive(0),
  };
}

/** The popup list of knowledge bases above the composer; the composer's keys move the selection. */
export function KbMenu(props: {
  id: string;
  items: KnowledgeBase[];
  active: number;
  loading: boolean;
  error: boolean;
  onPick(kb: KnowledgeBase): void;
}) {
  const t = useT();
  return (
    <div className="prompt-menu kb-menu" role="presentation">
      {props.loading ? (
        <p className="muted small">{t('common.loading')}</p>
      ) : props.error ? (
        <p className="muted small">{t('kb.pickerFailed')}</p>
      ) : props.items.length === 0 ? (
        <p className="muted small">{t('kb.pickerNone')}</p>
      ) : (
        <ul id={props.id} role="listbox" aria-label={t('kb.pickerLabel')}>
          {props.items.map((kb, i) => (
            <li
              key={kb.id}
              id={`${props.id}-${i}`}
              role="option"
              aria-selected={i === props.active}
              className={i === props.active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                props.onPick(kb);
              }}
            >
              <span>#{kb.name}</span>
              {kb.description && <span className="prompt-desc">{kb.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The knowledge bases attached to the message being written, each removable. */
export function KbChips(props: { items: KbRef[]; onRemove(id: string): void }) {
  const t = useT();
  if (props.items.length === 0) return null;
  return (
    <ul className="chip-list attached-resources kb-chips" aria-label={t('kb.attachedList')}>
      {props.items.map((kb) => (
        <li key={kb.id} className="chip">
          <span>#{kb.name}</span>
          <button
            type="button"
            className="btn btn-small btn-link"
            aria-label={t('kb.detachNamed', { name: kb.name })}
            onClick={() => props.onRemove(kb.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
