import { useId, useState } from 'react';
import { ApiFailure, joinUrl, type ApiClient } from '../api/client';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { ErrorBanner } from '../ui/controls';
import { chatPath } from './chat-types';

/** The export as text (Markdown or JSON), with the credential like every call. */
export async function fetchExport(api: ApiClient, ws: string, sid: string, format: 'md' | 'json'): Promise<string> {
  const res = await fetch(joinUrl(api.baseUrl, chatPath.exportAs(ws, sid, format)), {
    headers: api.credential ? { Authorization: `Bearer ${api.credential}` } : {},
  });
  const text = await res.text();
  if (!res.ok) throw new ApiFailure('http', res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText);
  return text;
}

function download(name: string, text: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** File names keep letters of any script; only characters no file system takes go. */
export function fileName(title: string, ext: string): string {
  const clean = [...title].map((ch) => (ch < ' ' || '\\/:*?"<>|'.includes(ch) ? ' ' : ch)).join('');
  const base = clean.replace(/\s+/g, ' ').trim().slice(0, 80) || 'chat';
  return `${base}.${ext}`;
}

/** The session menu of the chat header: export as Markdown or JSON, copy as Markdown. */
export function SessionMenu(props: { workspaceId: string; sessionId: string; title: string }) {
  const t = useT();
  const api = useApi();
  const menuId = useId();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const run = async (what: 'md' | 'json' | 'copy') => {
    setOpen(false);
    setError(undefined);
    try {
      const text = await fetchExport(api, props.workspaceId, props.sessionId, what === 'json' ? 'json' : 'md');
      if (what === 'copy') {
        await navigator.clipboard.writeText(text);
        setNote(t('common.copied'));
        setTimeout(() => setNote(''), 2000);
      } else download(fileName(props.title, what), text, what === 'json' ? 'application/json' : 'text/markdown');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <span className="menu-wrap session-menu">
      <button type="button" className="btn btn-small" aria-expanded={open} aria-controls={menuId} onClick={() => setOpen(!open)}>
        {t('chat.export')}
      </button>
      {open && (
        <ul className="menu menu-right" id={menuId} aria-label={t('chat.export')}>
          <li>
            <button type="button" onClick={() => void run('md')}>
              {t('chat.exportMd')}
            </button>
          </li>
          <li>
            <button type="button" onClick={() => void run('json')}>
              {t('chat.exportJson')}
            </button>
          </li>
          <li>
            <button type="button" onClick={() => void run('copy')}>
              {t('chat.copyMd')}
            </button>
          </li>
        </ul>
      )}
      <span role="status" className="small muted">
        {note}
      </span>
      {error !== undefined && <ErrorBanner error={error} />}
    </span>
  );
}
