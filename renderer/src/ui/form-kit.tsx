import { useState, type ReactNode } from 'react';
import { useT } from '../i18n/i18n';

/** Moves focus (and the view) to the first control marked invalid, once React has rendered the marks. */
export function focusFirstInvalid(root: HTMLElement | null): void {
  requestAnimationFrame(() => {
    const first = root?.querySelector<HTMLElement>('[aria-invalid="true"]');
    first?.scrollIntoView({ block: 'center' });
    first?.focus();
  });
}

/**
 * A base URL as people type it: `http://` added to a bare `host:port[/path]`, trailing slashes
 * removed (the API refuses them). Anything else is returned trimmed, for the server to judge.
 */
export function normalizeBaseUrl(input: string): string {
  let url = input.trim();
  if (!url) return url;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && /^[\w.-]+(:\d+)?(\/|$)|^\[[0-9a-f:]+\](:\d+)?(\/|$)/i.test(url)) url = `http://${url}`;
  return url.replace(/\/+$/, '');
}

/** An absolute http(s) URL. */
export function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** An id from a display name: "Deep Seek (work)" → "deep-seek-work". */
export function idFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

/** 1-based numbers of the non-empty lines that lack `sep` (env lines without "=", headers without ":"). */
export function linesWithout(text: string, sep: string): number[] {
  return text
    .split('\n')
    .map((line, i) => (line.trim() && !line.includes(sep) ? i + 1 : 0))
    .filter((n) => n > 0);
}

/**
 * Closing a form with unsaved edits asks first. `requestClose` is what Cancel, Escape and the
 * backdrop call; `bar` is the question, shown inside the dialog.
 */
export function useDiscardGuard(dirty: boolean, close: () => void): { requestClose(): void; bar: ReactNode } {
  const t = useT();
  const [asking, setAsking] = useState(false);
  const requestClose = () => (dirty ? setAsking(true) : close());
  const bar = asking ? (
    <div className="banner banner-warning discard-bar" role="alertdialog" aria-label={t('mgmt.discardTitle')}>
      <span>
        <strong>{t('mgmt.discardTitle')}</strong> {t('mgmt.discardMessage')}
      </span>
      <span className="button-row">
        <button type="button" className="btn btn-small" autoFocus onClick={() => setAsking(false)}>
          {t('mgmt.keepEditing')}
        </button>
        <button type="button" className="btn btn-small btn-danger" onClick={close}>
          {t('mgmt.discard')}
        </button>
      </span>
    </div>
  ) : null;
  return { requestClose, bar };
}
