import { useEffect, useId, useRef, useState } from 'react';
import { useT } from '../i18n/i18n';
import { AttachIcon, AttachmentTray } from './attachment-tray';
import type { PendingAttachment } from './use-attachments';

/** Files a paste or a file picker holds (the clipboard also offers the text of a copied file name). */
export function filesOf(list: FileList | null | undefined): File[] {
  return list ? Array.from(list) : [];
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Stop (or Esc) while a reply runs. Files come
 * from the attach button, a paste, or a drop on the conversation; they upload at once and go with
 * the next message.
 */
export function Composer(props: {
  running: boolean;
  busy: boolean;
  disabled?: boolean;
  attachments: PendingAttachment[];
  /** Uploads still running: Send waits for them. */
  uploading: boolean;
  onFiles(files: File[]): void;
  onRemoveFile(key: string): void;
  onSend(text: string): Promise<boolean>;
  onStop(): void;
  autoFocus?: boolean;
}) {
  const t = useT();
  const id = useId();
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

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
  const canSend = (text.trim().length > 0 || hasFiles) && !props.uploading && !props.running && !props.busy && !props.disabled;
  const send = async () => {
    if (!canSend) return;
    if (await props.onSend(text)) setText('');
  };

  return (
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
        <label htmlFor={id} className="sr-only">
          {t('chat.message')}
        </label>
        <textarea
          id={id}
          ref={ref}
          rows={1}
          value={text}
          placeholder={t('chat.messagePlaceholder')}
          disabled={props.disabled}
          onChange={(e) => setText(e.target.value)}
          onPaste={(e) => {
            const files = filesOf(e.clipboardData?.files);
            if (files.length === 0) return;
            e.preventDefault();
            props.onFiles(files);
          }}
          onKeyDown={(e) => {
            // An IME composing Chinese text uses Enter to commit a candidate, not to send.
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
              e.preventDefault();
              void send();
            }
          }}
        />
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
  );
}
