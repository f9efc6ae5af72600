import { useState } from 'react';
import { useT } from '../i18n/i18n';
import { MessageAttachments } from './attachment-view';
import { Badge, ErrorBanner } from '../ui/controls';
import type { Block } from './chat-types';

type Call = Extract<Block, { type: 'tool_call' }>;
type Result = Extract<Block, { type: 'tool_result' }>;

function pretty(args: Record<string, unknown>): string {
  try {
    return JSON.stringify(args, null, 2);
  } catch {
    return String(args);
  }
}

/** Web tools (built-in or the provider's own) say in one line what they looked for or read. */
function WebSummary({ call }: { call: Call }) {
  const t = useT();
  if (call.server !== 'web') return null;
  const { query, url } = call.arguments as { query?: unknown; url?: unknown };
  if (call.tool === 'web_search' && typeof query === 'string' && query)
    return <p className="tool-web">{t('web.card.search', { query })}</p>;
  if (call.tool === 'web_fetch' && typeof url === 'string' && /^https?:\/\//i.test(url))
    return (
      <p className="tool-web">
        {t('web.card.fetch', { url: '' })}
        <a href={url} target="_blank" rel="noopener noreferrer">
          {url}
        </a>
      </p>
    );
  return null;
}

/** One tool call: server, tool, arguments, its result, and Allow / Deny while it waits. */
export function ToolCard(props: {
  call: Call;
  result?: Result;
  waiting: boolean;
  running: boolean;
  onDecide?(decision: 'allow' | 'deny', remember: boolean): Promise<void>;
}) {
  const t = useT();
  const { call, result, waiting } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const status = result
    ? result.ok
      ? { tone: 'green' as const, label: t('chat.toolOk') }
      : { tone: 'red' as const, label: t('chat.toolError') }
    : waiting
      ? { tone: 'amber' as const, label: t('chat.toolWaiting') }
      : props.running
        ? { tone: 'blue' as const, label: t('chat.toolRunning') }
        : { tone: 'gray' as const, label: t('chat.toolPending') };
  const name = t('chat.tool', { server: call.server, tool: call.tool });
  const decide = async (decision: 'allow' | 'deny', remember: boolean) => {
    if (!props.onDecide) return;
    setBusy(true);
    setError(undefined);
    try {
      await props.onDecide(decision, remember);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className={`tool-card ${waiting ? 'tool-waiting' : ''}`} aria-label={name}>
      <div className="tool-head">
        <span className="tool-name">
          <span className="tool-server">{call.server}</span>
          <span aria-hidden="true"> · </span>
          <span className="mono">{call.tool}</span>
        </span>
        <Badge tone={status.tone}>{status.label}</Badge>
      </div>
      <WebSummary call={call} />
      <details className="tool-part" open={waiting || undefined}>
        <summary>{t('chat.toolArgs')}</summary>
        <pre className="tool-pre">{pretty(call.arguments)}</pre>
      </details>
      {result && (
        <details className="tool-part" open={!result.ok || result.content.length < 400 || undefined}>
          <summary>{t('chat.toolResult')}</summary>
          <pre className={`tool-pre ${result.ok ? '' : 'tool-pre-error'}`}>{result.content}</pre>
          {result.attachments && <MessageAttachments blocks={result.attachments} />}
        </details>
      )}
      {waiting && props.onDecide && (
        <div className="button-row tool-actions">
          <button type="button" className="btn btn-primary btn-small" disabled={busy} onClick={() => void decide('allow', false)}>
            {t('chat.allow')}
          </button>
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => void decide('deny', false)}>
            {t('chat.deny')}
          </button>
          {/* Web tools ask or not by one setting (Settings → Web search), not per tool. */}
          {call.server !== 'web' && (
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => void decide('allow', true)}>
              {t('chat.alwaysAllow')}
            </button>
          )}
        </div>
      )}
      <ErrorBanner error={error} />
    </section>
  );
}
