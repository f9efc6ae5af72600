import { useI18n } from '../i18n/i18n';
import type { Usage } from './chat-types';

/** Tokens the last request put in the model's context (cache reads and writes are part of the prompt). */
export function contextUsed(usage: Usage | undefined): number | null {
  if (!usage) return null;
  return usage.input + usage.cache_read + usage.cache_write + usage.output;
}

function short(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k`;
  return String(n);
}

/** Context used against the model's window, the compression threshold marked on the bar. */
export function ContextGauge(props: {
  used: number | null;
  window: number | null;
  model: string | null;
  threshold: number;
  compression: boolean;
}) {
  const { t } = useI18n();
  if (!props.window) {
    return props.model ? <span className="gauge-unknown muted small">{t('chat.contextUnknown', { model: props.model })}</span> : null;
  }
  const used = props.used ?? 0;
  const percent = Math.min(100, Math.round((used / props.window) * 1000) / 10);
  const label = t('chat.contextGauge', {
    used: used.toLocaleString('en-US'),
    window: props.window.toLocaleString('en-US'),
    percent,
    threshold: props.threshold,
  });
  const tone = props.compression && percent >= props.threshold ? 'gauge-hot' : percent >= 90 ? 'gauge-hot' : '';
  return (
    <div className="gauge" title={label + (props.compression ? '' : ` (${t('chat.compressionOff')})`)}>
      <span className="gauge-label small muted" aria-hidden="true">
        {t('chat.context')} {short(used)} / {short(props.window)}
      </span>
      <div
        className={`gauge-bar ${tone}`}
        role="meter"
        aria-label={t('chat.context')}
        aria-valuemin={0}
        aria-valuemax={props.window}
        aria-valuenow={Math.min(used, props.window)}
        aria-valuetext={label}
      >
        <div className="gauge-fill" style={{ width: `${percent}%` }} />
        {props.compression && <div className="gauge-mark" style={{ left: `${props.threshold}%` }} aria-hidden="true" />}
      </div>
    </div>
  );
}
