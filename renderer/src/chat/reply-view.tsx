import { lazy, memo, Suspense } from 'react';
import { useI18n } from '../i18n/i18n';
import { CopyButton } from '../ui/controls';
import type { Block, Usage } from './chat-types';
import { resultsById } from './reply-items';
import { ToolCard } from './tool-card';
import { SourcesList } from '../web/sources-list';
import type { Citation } from '../../../backend/chat/chat-api.js';

// The Markdown renderer (and marked) is its own chunk: the plain text shows until it arrives.
const LazyMarkdown = lazy(() => import('./markdown'));
export const preloadMarkdown = () => void import('./markdown');

export function MarkdownView({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="md md-plain">{text}</div>}>
      <LazyMarkdown text={text} />
    </Suspense>
  );
}

type Segment = { kind: 'text'; text: string; key: string } | { kind: 'tool'; call: Extract<Block, { type: 'tool_call' }>; key: string };

function segments(blocks: Block[]): { parts: Segment[]; thinking: string } {
  const parts: Segment[] = [];
  let thinking = '';
  blocks.forEach((b, i) => {
    if (b.type === 'thinking') thinking += (thinking && !thinking.endsWith('\n') ? '\n\n' : '') + b.text;
    else if (b.type === 'tool_call') parts.push({ kind: 'tool', call: b, key: `t${b.call_id}` });
    else if (b.type === 'text') {
      const last = parts[parts.length - 1];
      if (last?.kind === 'text') last.text += b.text;
      else parts.push({ kind: 'text', text: b.text, key: `x${i}` });
    }
  });
  return { parts, thinking };
}

export function UsageLine({ usage, model }: { usage?: Usage; model?: string }) {
  const { t, locale } = useI18n();
  // Which model answered shows even without token counts (a failed or imported reply).
  if (!usage) return model ? <p className="usage usage-model">{t('chat.answeredBy', { model })}</p> : null;
  const n = (v: number) => v.toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US');
  return (
    <p className="usage" aria-label={t('chat.usageLabel')}>
      {t('chat.usage', { input: n(usage.input), output: n(usage.output), cached: n(usage.cache_read), reasoning: n(usage.reasoning) })}
      {model && <span className="usage-model"> · {model}</span>}
    </p>
  );
}

export interface ReplyProps {
  blocks: Block[];
  usage?: Usage;
  model?: string;
  /** The reply's numbered sources (web pages, knowledge passages). */
  citations?: Citation[];
  /** Live turns: still streaming, and the calls waiting for a decision. */
  live?: boolean;
  waiting?: readonly string[];
  onDecide?(callId: string, decision: 'allow' | 'deny', remember: boolean): Promise<void>;
}

/** One assistant reply: Markdown text, tool cards in order, thinking collapsed under it, tokens used. */
export const ReplyView = memo(function ReplyView(props: ReplyProps) {
  const { t, locale } = useI18n();
  const { parts, thinking } = segments(props.blocks);
  const results = resultsById(props.blocks);
  const thinkingOnly = props.live && parts.length === 0 && thinking.length > 0;
  const count = thinking.length.toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US');
  return (
    <>
      {props.live && parts.length === 0 && !thinking && <p className="muted waiting-first">{t('chat.waitingFirst')}</p>}
      {parts.map((p) =>
        p.kind === 'text' ? (
          <MarkdownView key={p.key} text={p.text} />
        ) : (
          <ToolCard
            key={p.key}
            call={p.call}
            result={results.get(p.call.call_id)}
            waiting={props.waiting?.includes(p.call.call_id) ?? false}
            running={props.live ?? false}
            onDecide={props.onDecide ? (d, r) => props.onDecide!(p.call.call_id, d, r) : undefined}
          />
        ),
      )}
      {thinking && (
        <details className="thinking">
          <summary>{thinkingOnly ? t('chat.thinkingLive', { count }) : t('chat.thinkingLength', { count })}</summary>
          <div className="thinking-text">{thinking}</div>
        </details>
      )}
      {props.citations && <SourcesList citations={props.citations} />}
      <UsageLine usage={props.usage} model={props.model} />
      {!props.live && parts.some((p) => p.kind === 'text') && (
        <div className="msg-tools">
          <CopyButton
            text={parts
              .filter((p) => p.kind === 'text')
              .map((p) => p.text.trim())
              .join('\n\n')}
            label={t('md.copyMessage')}
          />
        </div>
      )}
    </>
  );
});
