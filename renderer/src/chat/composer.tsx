import { useEffect, useId, useRef, useState } from 'react';
import { useT } from '../i18n/i18n';

/** The message box: Enter sends, Shift+Enter adds a line, Stop (or Esc) while a reply runs. */
export function Composer(props: {
  running: boolean;
  busy: boolean;
  disabled?: boolean;
  onSend(text: string): Promise<boolean>;
  onStop(): void;
  /** Up in an empty box: edit the last question (true when there is one). */
  onEditLast?(): boolean;
  autoFocus?: boolean;
}) {
  const t = useT();
  const id = useId();
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);

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

  const canSend = text.trim().length > 0 && !props.running && !props.busy && !props.disabled;
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
        onKeyDown={(e) => {
          // An IME composing Chinese text uses Enter to commit a candidate, not to send.
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
            e.preventDefault();
            void send();
          } else if (e.key === 'ArrowUp' && text === '' && props.onEditLast?.()) {
            e.preventDefault();
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
    </form>
  );
}
