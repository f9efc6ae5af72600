import { useEffect, useId, useState, type FormEvent } from 'react';
import type { DesktopState } from '../../../app/ipc/contract.js';
import { useT } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Notice, Toggle } from '../ui/controls';

/** In the desktop app only: the global quick-ask shortcut (a clash is reported) and close-to-tray. */
export function DesktopSettings() {
  const t = useT();
  const id = useId();
  const app = shell();
  const [state, setState] = useState<DesktopState | null>(null);
  const [draft, setDraft] = useState('');
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  useEffect(() => {
    if (!app?.desktop) return;
    void fromShell(app.desktop.getSettings()).then((s) => {
      setState(s);
      setDraft(s.quick_ask_shortcut);
    });
  }, [app]);

  if (!app?.desktop || !state) return null;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const result = await fromShell(app.desktop.setShortcut(draft.trim()));
    setState(result.state);
    if (result.ok) setMessage({ tone: 'success', text: t('desk.shortcutSaved', { shortcut: draft.trim() }) });
    else setMessage({ tone: 'error', text: t(result.reason === 'taken' ? 'desk.taken' : 'desk.invalid', { shortcut: draft.trim() }) });
  };

  return (
    <section className="desktop-settings" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('desk.title')}</h3>
      <form onSubmit={(e) => void save(e)} className="desktop-shortcut">
        <label htmlFor={`${id}-s`}>{t('desk.quickShortcut')}</label>
        <input id={`${id}-s`} value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} aria-describedby={`${id}-hint`} />
        <button type="submit" className="btn btn-small">
          {t('common.save')}
        </button>
      </form>
      <p id={`${id}-hint`} className="muted small">
        {t('desk.shortcutHint')}
      </p>
      {message && <Notice tone={message.tone}>{message.text}</Notice>}
      {!state.active_shortcut && <Notice tone="warning">{t('desk.noShortcut')}</Notice>}
      <Toggle
        label={t('desk.closeToTray')}
        checked={state.close_to_tray}
        disabled={!state.tray}
        hint={state.tray ? undefined : t('desk.noTray')}
        onChange={(enabled) => void fromShell(app.desktop.setCloseToTray(enabled)).then(setState)}
      />
    </section>
  );
}
