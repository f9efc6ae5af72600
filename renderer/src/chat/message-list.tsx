import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { MessageAttachments } from './attachment-view';
import type { StoredMessage } from './chat-types';
import { InlineEditor, ReplyActions, useEditing, UserActions } from './branch-actions';
import { UserMessageText } from './mcp-resources';
import { buildItems, textOf, type Item } from './reply-items';
import { MarkdownView, ReplyView } from './reply-view';
import { layoutRows, rowAt, visibleRange, type Layout } from './virtual-rows';

const OVERSCAN = 900;
const LOAD_OLDER_WITHIN = 400;

const Row = memo(function Row({ item }: { item: Item }) {
  const t = useT();
  switch (item.kind) {
    case 'user':
      return <UserRow item={item} />;
    case 'reply':
      return (
        <article className="msg msg-assistant" data-ids={item.ids.join(' ')} aria-label={t('chat.assistant')} tabIndex={-1}>
          <ReplyView blocks={item.blocks} usage={item.usage} model={item.model} citations={item.citations} />
          <ReplyActions first={item.messages[0]} last={item.messages[item.messages.length - 1]} />
        </article>
      );
    case 'compaction':
      return (
        <div className="msg msg-compaction" role="note" data-ids={item.ids.join(' ')} aria-label={t('chat.compacted')}>
          <p>{t('chat.compacted')}</p>
          {item.record.summary && (
            <details>
              <summary>{t('chat.summary')}</summary>
              <MarkdownView text={item.record.summary} />
            </details>
          )}
        </div>
      );
  }
});

function UserRow({ item }: { item: Extract<Item, { kind: 'user' }> }) {
  const t = useT();
  const editing = useEditing(item.message.id);
  return (
    <article className="msg msg-user" data-ids={item.ids.join(' ')} aria-label={t('chat.you')} tabIndex={-1}>
      <MessageAttachments blocks={item.message.blocks} />
      {editing ? (
        <InlineEditor message={item.message} />
      ) : (
        textOf(item.message.blocks) && (
          <div className="bubble">
            <UserMessageText blocks={item.message.blocks} />
          </div>
        )
      )}
      {!editing && <UserActions message={item.message} />}
    </article>
  );
}

interface Viewport {
  top: number;
  height: number;
  /** Following the newest text (the reader is at the bottom). */
  pinned: boolean;
}

/**
 * The conversation's scroller, virtualised: only the rows near the viewport are in the DOM (spacers
 * stand for the rest, at measured or estimated heights), so a 2,000-message chat streams as smoothly
 * as a short one. Older pages load as the top comes near; the row under the reader's eye stays put
 * when rows above it load or change size; new text keeps the view pinned while the reader is at the bottom.
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
  const keys = useMemo(() => items.map((i) => i.key), [items]);
  const [heights, setHeights] = useState<ReadonlyMap<string, number>>(() => new Map());
  const layout = useMemo(() => layoutRows(keys, heights), [keys, heights]);
  const [viewport, setViewport] = useState<Viewport>({ top: 0, height: 800, pinned: true });
  const [pinKey, setPinKey] = useState(props.pinKey);
  if (pinKey !== props.pinKey) {
    setPinKey(props.pinKey);
    setViewport((v) => ({ ...v, pinned: true }));
  }

  const scroller = useRef<HTMLDivElement>(null);
  const latest = useRef<Layout>(layout);
  const anchor = useRef<{ key: string; delta: number } | null>(null);
  const observer = useRef<ResizeObserver | null>(null);
  /** scrollTop as the list last saw or set it. */
  const seenTop = useRef(0);

  const total = layout.offsets[keys.length] ?? 0;
  const top = viewport.pinned ? Math.max(0, total - viewport.height) : viewport.top;
  const [start, end] = visibleRange(layout.offsets, top, viewport.height, OVERSCAN);

  // Measured heights replace estimates (one state update per observer batch).
  const measure = useCallback((el: HTMLDivElement | null) => {
    if (!el) return;
    observer.current ??= new ResizeObserver((entries) => {
      setHeights((prev) => {
        let next: Map<string, number> | null = null;
        for (const e of entries) {
          const key = (e.target as HTMLElement).dataset.key;
          const h = e.borderBoxSize?.[0]?.blockSize ?? (e.target as HTMLElement).offsetHeight;
          if (!key || !h || Math.abs((prev.get(key) ?? -1) - h) < 0.5) continue;
          next ??= new Map(prev);
          next.set(key, h);
        }
        return next ?? prev;
      });
    });
    const obs = observer.current;
    obs.observe(el);
    return () => obs.unobserve(el);
  }, []);
  useEffect(() => () => observer.current?.disconnect(), []);

  // After every render: stay at the bottom when pinned, else keep the anchor row where it was.
  useLayoutEffect(() => {
    latest.current = layout;
    const el = scroller.current;
    if (!el) return;
    // The reader scrolled since the list last placed the view (its scroll event is still to
    // come): leave the view where they put it.
    if (Math.abs(el.scrollTop - seenTop.current) > 2) return;
    if (viewport.pinned && !props.highlight) {
      el.scrollTop = el.scrollHeight;
      seenTop.current = el.scrollTop;
      return;
    }
    const a = anchor.current;
    const i = a ? layout.index.get(a.key) : undefined;
    if (a && i !== undefined) {
      const want = layout.offsets[i] + a.delta;
      if (Math.abs(el.scrollTop - want) > 1) el.scrollTop = want;
    }
    seenTop.current = el.scrollTop;
  });

  const { onLoadOlder, hasMore, loadingOlder, highlight, onHighlightShown } = props;

  // A search hit: scroll its row into view, then mark it once it is rendered.
  useLayoutEffect(() => {
    if (!highlight) return;
    const el = scroller.current;
    const i = items.findIndex((it) => it.ids.includes(highlight));
    if (!el || i < 0) return;
    const y = Math.max(0, layout.offsets[i] - el.clientHeight / 3);
    anchor.current = { key: items[i].key, delta: y - layout.offsets[i] };
    el.scrollTop = y;
    seenTop.current = el.scrollTop;
    setViewport({ top: y, height: el.clientHeight, pinned: false });
    // Only when the hit changes: later renders keep it in place through the anchor.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [highlight]);
  useEffect(() => {
    if (!highlight) return;
    const row = scroller.current?.querySelector<HTMLElement>(`[data-ids~="${CSS.escape(highlight)}"]`);
    if (!row) return;
    row.classList.add('msg-highlight');
    row.focus({ preventScroll: true });
    const timer = setTimeout(() => {
      row.classList.remove('msg-highlight');
      onHighlightShown();
    }, 2500);
    return () => clearTimeout(timer);
  }, [highlight, start, end, onHighlightShown]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const pinned = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
    seenTop.current = el.scrollTop;
    const l = latest.current;
    const i = rowAt(l.offsets, el.scrollTop);
    anchor.current = l.offsets.length > 1 ? { key: keys[i] ?? '', delta: el.scrollTop - l.offsets[i] } : null;
    const next = { top: el.scrollTop, height: el.clientHeight, pinned };
    setViewport((v) => (v.top === next.top && v.height === next.height && v.pinned === next.pinned ? v : next));
    if (el.scrollTop < LOAD_OLDER_WITHIN && hasMore && !loadingOlder) onLoadOlder();
  };

  return (
    <div className="msg-scroller" ref={scroller} tabIndex={0} role="region" aria-label={t('chat.conversation')} onScroll={onScroll}>
      <div className="msg-list">
        {hasMore && start === 0 && (
          <div className="older">
            <button type="button" className="btn btn-small" disabled={loadingOlder} onClick={onLoadOlder}>
              {loadingOlder ? t('chat.loadingOlder') : t('chat.loadOlder')}
            </button>
          </div>
        )}
        <div style={{ height: layout.offsets[start] ?? 0 }} aria-hidden="true" />
        {items.slice(start, end).map((item) => (
          <div key={item.key} data-key={item.key} className="vrow" ref={measure}>
            <Row item={item} />
          </div>
        ))}
        <div style={{ height: total - (layout.offsets[end] ?? total) }} aria-hidden="true" />
        {props.children}
      </div>
    </div>
  );
}
