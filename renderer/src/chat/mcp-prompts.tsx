import { useRef, useState, type FormEvent } from 'react';
import type { PromptInfo, PromptMessage } from '../../../backend/mcp/mcp-status-api.js';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field } from '../ui/controls';

type PromptList = { prompts: PromptInfo[]; problems: { server: string; error: string }[] };

const promptsPath = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}/mcp/prompts`;

/** The rendered prompt as composer text: its messages' texts, one paragraph each. */
export function promptText(messages: PromptMessage[]): string {
  return messages
    .map((m) => m.text)
    .filter(Boolean)
    .join('\n\n');
}

/** What `/query` in the composer is looking for, or null when the text is not a prompt query. */
export function slashQuery(text: string): string | null {
  const m = /^\/(\S*)$/.exec(text);
  return m ? m[1].toLowerCase() : null;
}

/**
 * DESIGN 9: the workspace's MCP prompts after `/` in the composer. The list is asked of the servers
 * when the menu opens (they may start then), so a server's prompts/list_changed needs no cache.
 */
export function usePrompts(workspaceId: string | undefined) {
  const api = useApi();
  const [list, setList] = useState<PromptList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loading = useRef(false);
  const load = async () => {
    if (!workspaceId || loading.current) return;
    loading.current = true;
    try {
      setList(await api.get<PromptList>(promptsPath(workspaceId)));
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      loading.current = false;
    }
  };
  const render = async (p: PromptInfo, args: Record<string, string>) =>
    promptText(
      (
        await api.post<{ messages: PromptMessage[] }>(`${promptsPath(workspaceId!)}/get`, {
          server: p.server,
          name: p.name,
          arguments: args,
        })
      ).messages,
    );
  return { list, error, load, reset: () => setList(null), render };
}

export function matching(prompts: PromptInfo[], query: string): PromptInfo[] {
  return prompts.filter((p) => `${p.server} ${p.name} ${p.description}`.toLowerCase().includes(query)).slice(0, 12);
}

/** The popup list of prompts above the composer; the composer's keys move the selection. */
export function PromptMenu(props: { id: string; items: PromptInfo[]; active: number; loading: boolean; onPick(p: PromptInfo): void }) {
  const t = useT();
  return (
    <div className="prompt-menu" role="presentation">
      {props.loading ? (
        <p className="muted small">{t('mcp.promptsLoading')}</p>
      ) : props.items.length === 0 ? (
        <p className="muted small">{t('mcp.promptsNone')}</p>
      ) : (
        <ul id={props.id} role="listbox" aria-label={t('mcp.prompts')}>
          {props.items.map((p, i) => (
            <li
              key={`${p.server}/${p.name}`}
              id={`${props.id}-${i}`}
              role="option"
              aria-selected={i === props.active}
              className={i === props.active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                props.onPick(p);
              }}
            >
              <span className="mono">/{p.name}</span> <span className="muted small">{p.server}</span>
              {p.description && <span className="prompt-desc">{p.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The small form for a prompt's arguments; `insert` renders it and hands the text to the composer. */
export function PromptArgsDialog(props: { prompt: PromptInfo; onClose(): void; insert(args: Record<string, string>): Promise<void> }) {
  const t = useT();
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const absent = props.prompt.arguments.filter((a) => a.required && !values[a.name]?.trim()).map((a) => a.name);
    setMissing(absent);
    if (absent.length) return;
    setBusy(true);
    try {
      const args = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
      await props.insert(args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('mcp.promptTitle', { name: props.prompt.name })} open onClose={props.onClose}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="dialog-body">
          {props.prompt.description && <p className="muted">{props.prompt.description}</p>}
          {props.prompt.arguments.map((a, i) => (
            <Field
              key={a.name}
              label={a.required ? a.name : `${a.name} (${t('common.optional')})`}
              hint={a.description || undefined}
              error={missing.includes(a.name) ? t('mgmt.required', { field: a.name }) : undefined}
            >
              <input
                value={values[a.name] ?? ''}
                autoFocus={i === 0}
                onChange={(e) => setValues({ ...values, [a.name]: e.target.value })}
              />
            </Field>
          ))}
          <ErrorBanner error={error} />
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {t('mcp.promptInsert')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
