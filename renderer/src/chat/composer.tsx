import { useEffect, useId, useRef, useState } from 'react';
import type { PromptInfo } from '../../../backend/mcp/mcp-status-api.js';
import { useT } from '../i18n/i18n';
import { AttachIcon, AttachmentTray } from './attachment-tray';
import { matching, PromptArgsDialog, PromptMenu, slashQuery, usePrompts } from './mcp-prompts';
import { AttachedResources, ResourcePicker, type ResourceRef } from './mcp-resources';
import type { PendingAttachment } from './use-attachments';
import { KbChips, KbMenu, useKbMention } from '../knowledge/kb-mention';

/** Files a paste or a file picker holds (the clipboard also offers the text of a copied file name). */
export function filesOf(list: FileList | null | undefined): File[] {
  return list ? Array.from(list) : [];
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Stop (or Esc) while a reply runs. Files come
 * from the attach button, a paste, or a drop on the conversation; they upload at once and go with
 * the next message. `/` at the start offers the tool servers' prompts; "Resource" adds their
 * resources to the message.
 */
export function Composer(props: {
  running: boolean;
  busy: boolean;
  disabled?: boolean;
  /** The workspace whose tool servers offer prompts and resources. */
  workspaceId?: string;
  attachments: PendingAttachment[];
  /** Uploads still running: Send waits for them. */
  uploading: boolean;
  onFiles(files: File[]): void;
  onRemoveFile(key: string): void;
  /** `knowledgeBases`: the ids picked with `#` for this message (DESIGN 13). */
  onSend(text: string, resources: { server: string; uri: string }[], knowledgeBases: string[]): Promise<boolean>;
  onStop(): void;
  /** Up in an empty box: edit the last question (true when there is one). */
  onEditLast?(): boolean;
  autoFocus?: boolean;
  /** Web search for this conversation (DESIGN 14): the globe toggle. */
  webSearch?: { on: boolean; onToggle(): void };
}) {
  const t = useT();
  const id = useId();
  const menuId = `${id}-prompts`;
  const [text, setText] = useState('');
  const [resources, setResources] = useState<ResourceRef[]>([]);
  const [picking, setPicking] = useState(false);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [asking, setAsking] = useState<PromptInfo | null>(null);
  const ref = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const prompts = usePrompts(props.workspaceId);
  const query = props.workspaceId && !dismissed ? slashQuery(text) : null;
  const items = query !== null && prompts.list ? matching(prompts.list.prompts, query) : [];
  const menuOpen = query !== null;
  const kbs = useKbMention(text, setText);
  const kbMenuId = `${id}-kbs`;
  const kbMenu = !menuOpen && kbs.open && kbs.items.length > 0;

  // Focus once the box is usable (it is disabled while the conversation loads).
  useEffect(() => {
    if (props.autoFocus && !props.disabled) ref.current?.focus();
  }, [props.autoFocus, props.disabled]);

  // Grow with the text up to a limit, then scroll inside.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight + 2, 240)}px`;
  }, [text]);

  const hasFiles = props.attachments.some((a) => a.status === 'ready');
  const canSend =
    (text.trim().length > 0 || hasFiles || resources.length > 0) && !props.uploading && !props.running && !props.busy && !props.disabled;
  const send = async () => {
    if (!canSend) return;
    if (
      await props.onSend(
        text,
        resources.map(({ server, uri }) => ({ server, uri })),
        kbs.chosen.map((kb) => kb.id),
      )
    ) {
      setText('');
      setResources([]);
      kbs.clear();
    }
  };

  const insert = (rendered: string) => {
    setText(rendered);
    setAsking(null);
    setDismissed(false);
    requestAnimationFrame(() => ref.current?.focus());
  };
  const pick = async (p: PromptInfo) => {
    if (p.arguments.length > 0) return setAsking(p);
    insert(await prompts.render(p, {}));
  };

  return (
    <div className="composer-wrap">
      {menuOpen && (
        <PromptMenu id={menuId} items={items} active={active} loading={!prompts.list && !prompts.error} onPick={(p) => void pick(p)} />
      )}
      {!menuOpen && kbs.visible && (
        <KbMenu id={kbMenuId} items={kbs.items} active={kbs.active} loading={kbs.loading} error={kbs.error} onPick={kbs.pick} />
      )}
      <KbChips items={kbs.chosen} onRemove={kbs.remove} />
      <AttachedResources items={resources} onRemove={(r) => setResources(resources.filter((x) => x !== r))} />
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <AttachmentTray items={props.attachments} onRemove={props.onRemoveFile} />
        <div className="composer-row">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            onChange={(e) => {
              props.onFiles(filesOf(e.target.files));
              e.target.value = '';
            }}
          />
          <button
            type="button"
            className="btn btn-ghost composer-attach"
            aria-label={t('chat.attach.button')}
            title={t('chat.attach.hint')}
            disabled={props.disabled}
            onClick={() => picker.current?.click()}
          >
            <AttachIcon kind="clip" />
          </button>
          {props.webSearch && (
            <button
              type="button"
              className={`btn btn-ghost composer-attach composer-web ${props.webSearch.on ? 'is-on' : ''}`}
              aria-label={t('web.toggle')}
              aria-pressed={props.webSearch.on}
              title={t(props.webSearch.on ? 'web.toggleOn' : 'web.toggleOff')}
              disabled={props.disabled}
              onClick={props.webSearch.onToggle}
            >
              <AttachIcon kind="globe" />
            </button>
          )}
          <label htmlFor={id} className="sr-only">
            {t('chat.message')}
          </label>
          <textarea
            id={id}
            ref={ref}
            rows={1}
            value={text}
            placeholder={props.workspaceId ? t('mcp.messagePlaceholder') : t('chat.messagePlaceholder')}
            disabled={props.disabled}
            aria-controls={menuOpen && items.length ? menuId : kbMenu ? kbMenuId : undefined}
            aria-activedescendant={menuOpen && items.length ? `${menuId}-${active}` : kbMenu ? `${kbMenuId}-${kbs.active}` : undefined}
            onChange={(e) => {
              const next = e.target.value;
              setText(next);
              setActive(0);
              kbs.typed();
              if (slashQuery(next) === null) setDismissed(false);
              // The list is asked of the servers each time the menu opens.
              if (next === '/') void prompts.load();
            }}
            onPaste={(e) => {
              const files = filesOf(e.clipboardData?.files);
              if (files.length === 0) return;
              e.preventDefault();
              props.onFiles(files);
            }}
            onKeyDown={(e) => {
              if (menuOpen && items.length > 0) {
                if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                  e.preventDefault();
                  setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
                  return;
                }
                if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
                  e.preventDefault();
                  void pick(items[Math.min(active, items.length - 1)]);
                  return;
                }
              }
              if (!menuOpen && kbs.keyDown(e)) return;
              if (menuOpen && e.key === 'Escape') {
                e.preventDefault();
                setDismissed(true);
                return;
              }
              // An IME composing Chinese text uses Enter to commit a candidate, not to send.
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
                e.preventDefault();
                void send();
              } else if (e.key === 'ArrowUp' && text === '' && props.onEditLast?.()) {
                // Up in an empty box edits the last question.
                e.preventDefault();
              }
            }}
          />
          {props.workspaceId && (
            <button type="button" className="btn" onClick={() => setPicking(true)} disabled={props.disabled} title={t('mcp.attachHint')}>
              {t('mcp.attachResource')}
            </button>
          )}
          {props.running ? (
            <button type="button" className="btn btn-danger" onClick={props.onStop} title={t('chat.stopHint')}>
              {t('chat.stop')}
            </button>
          ) : (
            <button type="submit" className="btn btn-primary" disabled={!canSend}>
              {t('chat.send')}
            </button>
          )}
        </div>
      </form>
      {picking && props.workspaceId && (
        <ResourcePicker
          workspaceId={props.workspaceId}
          chosen={resources}
          onClose={() => setPicking(false)}
          onPick={(r) => setResources((list) => [...list, r])}
        />
      )}
      {asking && (
        <PromptArgsDialog
          prompt={asking}
          onClose={() => setAsking(null)}
          insert={async (args) => insert(await prompts.render(asking, args))}
        />
      )}
    </div>
  );
}
