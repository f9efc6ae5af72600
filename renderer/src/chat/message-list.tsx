import { memo, useEffect, useLayoutEffect, useMemo, useRef, type ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { textOf, buildItems, type Item } from './reply-items';
import { MarkdownView, ReplyView } from './reply-view';
import type { StoredMessage } from './chat-types';

const Row = memo(function Row({ item }: { item: Item }) {
  const t = useT();
  switch (item.kind) {
    case 'user':
      return (
        <article className="msg msg-user" data-ids={item.ids.join(' ')} aria-label={t('chat.you')} tabIndex={-1}>
          <div className="bubble">{textOf(item.message.blocks)}</div>
        </article>
      );
    case 'reply':
      return (
        <article className="msg msg-assistant" data-ids={item.ids.join(' ')} aria-label={t('chat.assistant')} tabIndex={-1}>
          <ReplyView blocks={item.blocks} usage={item.usage} model={item.model} />
        </article>
      );
    case 'compaction':
      return (
        <aside className="msg msg-compaction" data-ids={item.ids.join(' ')} aria-label={t('chat.compacted')}>
          <p>{t('chat.compacted')}</p>
          {item.record.summary && (
            <details>
              <summary>{t('chat.summary')}</summary>
              <MarkdownView text={item.record.summary} />
            </details>
          )}
        </aside>
      );
  }
});

/**
 * The conversation's scroller: older pages load when the top comes into view (keeping the reading
 * position), new text keeps it pinned to the bottom while the reader is there.
 */
export function MessageList(props: {
  messages: StoredMessage[];
  hasMore: boolean;
  loadingOlder: boolean;
  onLoadOlder(): void;
  highlight: string | null;
  onHighlightShown(): void;
  children?: ReactNode;
  /** Changes whenever live content grows (keeps the bottom pinned). */
  liveVersion: unknown;
  /** A new value (a new turn) scrolls to the bottom and pins it there. */
  pinKey: unknown;
}) {
  const t = useT();
  const items = useMemo(() => buildItems(props.messages), [props.messages]);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const anchor = useRef<{ key: string; height: number; top: number } | null>(null);
  const { hasMore, loadingOlder, onLoadOlder } = props;
  const firstKey = items[0]?.key;

  // Older messages were prepended: keep the same message under the reader's eye.
  useLayoutEffect(() => {
    const el = scroller.current;
    const a = anchor.current;
    if (!el || !a) return;
    if (a.key !== firstKey) el.scrollTop = a.top + (el.scrollHeight - a.height);
    anchor.current = null;
  }, [firstKey]);

  useLayoutEffect(() => {
    pinned.current = true;
  }, [props.pinKey]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current && !props.highlight) el.scrollTop = el.scrollHeight;
  }, [items, props.liveVersion, props.highlight, props.pinKey]);

  useEffect(() => {
    if (!props.highlight) return;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-ids~="${CSS.escape(props.highlight)}"]`);
    if (!el) return;
    pinned.current = false;
    el.scrollIntoView({ block: 'center' });
    el.classList.add('msg-highlight');
    el.focus({ preventScroll: true });
    const timer = setTimeout(() => {
      el.classList.remove('msg-highlight');
      props.onHighlightShown();
    }, 2500);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.highlight, items]);

  const loadOlder = () => {
    const el = scroller.current;
    if (!el || !hasMore || loadingOlder) return;
    anchor.current = { key: firstKey ?? '', height: el.scrollHeight, top: el.scrollTop };
    onLoadOlder();
  };

  return (
    <div
      className="msg-scroller"
      ref={scroller}
      tabIndex={0}
      role="region"
      aria-label={t('chat.conversation')}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
        if (el.scrollTop < 300) loadOlder();
      }}
    >
      <div className="msg-list">
        {hasMore && (
          <div className="older">
            <button type="button" className="btn btn-small" disabled={loadingOlder} onClick={loadOlder}>
              {loadingOlder ? t('chat.loadingOlder') : t('chat.loadOlder')}
            </button>
          </div>
        )}
        {items.map((item) => (
          <Row key={item.key} item={item} />
        ))}
        {props.children}
      </div>
    </div>
  );
}
