import { createContext, useContext, useEffect, useId, useRef, useState } from 'react';
import { useT } from '../i18n/i18n';
import type { ModelInfo } from '../../../backend/chat/branch-api.js';
import type { ChatMessage } from './chat-types';
import { typedText } from './mcp-resources';

/** What the rows of a conversation can do to its branches (DESIGN 7); absent in read-only lists. */
export interface BranchActions {
  /** A turn runs: no edit, regenerate or switch until it ends. */
  busy: boolean;
  editing: string | null;
  models: ModelInfo[];
  edit(messageId: string | null): void;
  submitEdit(message: ChatMessage, text: string): Promise<boolean>;
  regenerate(replyId: string, model?: string): void;
  step(messageId: string, delta: number): void;
  fork(messageId: string): void;
}

export const BranchContext = createContext<BranchActions | null>(null);

/** `‹ 2/3 ›`: the message's place among its alternatives; the arrows show the neighbour's branch. */
export function SiblingSwitcher({ message }: { message: ChatMessage }) {
  const t = useT();
  const actions = useContext(BranchContext);
  const s = message.siblings;
  if (!actions || !s || s.count < 2) return null;
  return (
    <span className="sibling-switch" role="group" aria-label={t('chat.alternatives', { index: s.index, count: s.count })}>
      <button
        type="button"
        className="icon-btn"
        aria-label={t('chat.prevAlternative')}
        disabled={actions.busy || s.index <= 1}
        onClick={() => actions.step(message.id, -1)}
      >
        ‹
      </button>
      <span className="sibling-pos" aria-hidden="true">
        {s.index}/{s.count}
      </span>
      <button
        type="button"
        className="icon-btn"
        aria-label={t('chat.nextAlternative')}
        disabled={actions.busy || s.index >= s.count}
        onClick={() => actions.step(message.id, 1)}
      >
        ›
      </button>
    </span>
  );
}

/** Below a question: switcher, edit, fork. */
export function UserActions({ message }: { message: ChatMessage }) {
  const t = useT();
  const actions = useContext(BranchContext);
  if (!actions) return null;
  return (
    <div className="msg-actions">
      <SiblingSwitcher message={message} />
      <button type="button" className="btn-link" disabled={actions.busy} onClick={() => actions.edit(message.id)}>
        {t('common.edit')}
      </button>
      <button type="button" className="btn-link" onClick={() => actions.fork(message.id)}>
        {t('chat.fork')}
      </button>
    </div>
  );
}

/** Below a reply: switcher, regenerate (same model or another), fork. `first`/`last`: the reply's first and last message. */
export function ReplyActions({ first, last }: { first: ChatMessage; last: ChatMessage }) {
  const t = useT();
  const actions = useContext(BranchContext);
  const menuId = useId();
  const [open, setOpen] = useState(false);
  if (!actions) return null;
  const enabled = actions.models.filter((m) => m.enabled && (m.kind ?? 'chat') === 'chat');
  return (
    <div className="msg-actions">
      <SiblingSwitcher message={first} />
      <button type="button" className="btn-link" disabled={actions.busy} onClick={() => actions.regenerate(first.id)}>
        {t('chat.regenerate')}
      </button>
      {enabled.length > 1 && (
        <span className="menu-wrap">
          <button
            type="button"
            className="btn-link"
            aria-expanded={open}
            aria-controls={menuId}
            disabled={actions.busy}
            onClick={() => setOpen(!open)}
          >
            {t('chat.regenerateWith')}
          </button>
          {open && (
            <ul className="menu" id={menuId} aria-label={t('chat.regenerateWith')}>
              {enabled.map((m) => (
                <li key={m.id}>
                  <button
                    type="button"
                    onClick={() => {
                      setOpen(false);
                      actions.regenerate(first.id, m.id);
                    }}
                  >
                    {m.name} <span className="muted small">({m.provider_name})</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </span>
      )}
      <button type="button" className="btn-link" onClick={() => actions.fork(last.id)}>
        {t('chat.fork')}
      </button>
    </div>
  );
}

/** Edits a question in place: Enter sends it as a new branch, Shift+Enter adds a line, Esc cancels. */
export function InlineEditor({ message }: { message: ChatMessage }) {
  const t = useT();
  const actions = useContext(BranchContext);
  const [text, setText] = useState(() => typedText(message.blocks));
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  if (!actions) return null;
  const send = () => {
    if (text.trim()) void actions.submitEdit(message, text);
  };
  return (
    <form
      className="inline-edit"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        ref={ref}
        aria-label={t('chat.editMessage')}
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            actions.edit(null);
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div className="inline-edit-foot">
        <span className="muted small">{t('chat.editHint')}</span>
        <button type="button" className="btn btn-small" onClick={() => actions.edit(null)}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-small btn-primary" disabled={!text.trim() || actions.busy}>
          {t('chat.send')}
        </button>
      </div>
    </form>
  );
}

/** Whether this question is the one being edited. */
export function useEditing(id: string): boolean {
  return useContext(BranchContext)?.editing === id;
}
