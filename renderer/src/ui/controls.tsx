import { cloneElement, useEffect, useId, useRef, useState, type ReactElement, type ReactNode } from 'react';
import { ApiFailure } from '../api/client';
import { useT } from '../i18n/i18n';
import { DataTable } from './data-table';

type ControlProps = { id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };

/** A labelled control with its hint and its error; the error is tied to the control for screen readers. */
export function Field(props: {
  label: string;
  hint?: ReactNode;
  error?: string;
  children: ReactElement<ControlProps>;
  className?: string;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [props.error ? errorId : null, props.hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${props.error ? 'field-invalid' : ''} ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {cloneElement(props.children, { id, 'aria-invalid': props.error ? true : undefined, 'aria-describedby': described })}
      {props.error && (
        <p className="field-error" id={errorId} role="alert">
          {props.error}
        </p>
      )}
      {props.hint && (
        <p className="field-hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

export function Toggle(props: { label: string; checked: boolean; onChange(v: boolean): void; disabled?: boolean; hint?: string }) {
  const id = useId();
  return (
    <div className="toggle-row">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.checked)}
      />
      <label htmlFor={id}>{props.label}</label>
      {props.hint && <span className="field-hint inline">{props.hint}</span>}
    </div>
  );
}

export type Tone = 'green' | 'amber' | 'red' | 'gray' | 'blue';

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: string; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: string;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card ${className ?? ''}`} aria-label={title}>
      {(title || actions) && (
        <div className="card-head">
          {title && <h2>{title}</h2>}
          {actions}
        </div>
      )}
      <div className="card-body">{children}</div>
    </section>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

export function ErrorBanner({ error }: { error: unknown }) {
  const t = useT();
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="banner banner-error" role="alert">
      {t('common.error', { message })}
    </div>
  );
}

export function Notice({ tone, children }: { tone: 'info' | 'success' | 'warning' | 'error'; children: ReactNode }) {
  return (
    <div className={`banner banner-${tone}`} role={tone === 'error' || tone === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/**
 * A modal on the native <dialog>: focus moves into it; Escape asks the owner to close it (which may
 * first ask about unsaved edits); focus returns to the control that opened it.
 */
export function Dialog(props: { title: string; open: boolean; onClose(): void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const restore = () => {
      const back = opener.current;
      opener.current = null;
      if (back?.isConnected) requestAnimationFrame(() => back.focus());
    };
    if (props.open && !el.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      el.showModal();
    }
    if (!props.open && el.open) {
      el.close();
      restore();
    }
    return () => {
      // Unmounted while open (editors are rendered only while shown).
      if (props.open && opener.current) restore();
    };
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className={`dialog ${props.wide ? 'dialog-wide' : ''}`}
      aria-label={props.title}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.open && (
        <>
          <div className="dialog-head">
            <h2>{props.title}</h2>
          </div>
          {props.children}
        </>
      )}
    </dialog>
  );
}

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm(): Promise<void> | void;
  onClose(): void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      <div className="dialog-body">
        <p>{props.message}</p>
        <ErrorBanner error={error} />
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          onClick={() => {
            void (async () => {
              setBusy(true);
              setError(undefined);
              try {
                await props.onConfirm();
                props.onClose();
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            })();
          }}
        >
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

export function CopyButton({ text, label }: { text: string; label?: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      onClick={() => {
        void (async () => {
          await copyText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        })();
      }}
    >
      {copied ? t('common.copied') : (label ?? t('common.copy'))}
    </button>
  );
}

/** Clipboard API where allowed (secure contexts), else a hidden textarea and execCommand. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** Server errors that name a field go next to it; anything else goes to the form's banner. */
export function useFormErrors() {
  const [fields, setFields] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<unknown>();
  return {
    general,
    fieldError: (name: string) => fields[name],
    clear() {
      setFields({});
      setGeneral(undefined);
    },
    setLocal(name: string, message: string) {
      setFields((f) => ({ ...f, [name]: message }));
    },
    /** Every problem at once (client-side checks), replacing the previous marks. */
    setMany(problems: Record<string, string>) {
      setFields(problems);
      setGeneral(undefined);
    },
    /** The user changed something: a form-wide error from the last try is stale. */
    clearGeneral() {
      setGeneral(undefined);
    },
    /** The user changed the field: its old error is stale. */
    clearField(name: string) {
      setFields((f) => {
        if (!(name in f)) return f;
        const { [name]: _gone, ...rest } = f;
        return rest;
      });
    },
    report(err: unknown, known: readonly string[]) {
      if (err instanceof ApiFailure && err.field && known.includes(err.field)) {
        setFields({ [err.field]: err.message });
        setGeneral(undefined);
      } else {
        setFields({});
        setGeneral(err);
      }
    },
  };
}

/** A list card's body: loading, its empty state, or the table (stacked cards at phone width, see DataTable). */
export function ListTable({
  loading,
  empty,
  head,
  children,
}: {
  loading: boolean;
  empty: ReactNode | null;
  head: ReactNode;
  children: ReactNode;
}) {
  const t = useT();
  if (loading) return <p className="muted">{t('common.loading')}</p>;
  if (empty) return <>{empty}</>;
  return <DataTable head={head}>{children}</DataTable>;
}

/** A small button in a table row's actions; `label` names the row it acts on for screen readers. */
export function RowButton({ label, danger, onClick, children }: { label: string; danger?: boolean; onClick(): void; children: ReactNode }) {
  return (
    <button type="button" className={danger ? 'btn btn-small btn-danger-ghost' : 'btn btn-small'} aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}
