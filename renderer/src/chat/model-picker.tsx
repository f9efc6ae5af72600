import { useId } from 'react';
import { useI18n } from '../i18n/i18n';
import type { ModelInfo, ThinkingOverride } from '../../../backend/chat/branch-api.js';

export interface PickerProps {
  models: ModelInfo[];
  /** The profile's model (what "profile default" means here). */
  profileModel: string | null;
  profileThinking: boolean;
  override: string | null;
  thinking: ThinkingOverride | null;
  disabled?: boolean;
  onModel(model: string | null): void;
  onThinking(thinking: ThinkingOverride | null): void;
}

function kTokens(n: number): string {
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/** The chat header's model picker: enabled models grouped by provider, and thinking where the model has it. */
export function ModelPicker(props: PickerProps) {
  const { t } = useI18n();
  const id = useId();
  // Chat models only (DESIGN 13): embedding and rerank models serve knowledge bases.
  const enabled = props.models.filter((m) => m.enabled && (m.kind ?? 'chat') === 'chat');
  const groups = new Map<string, ModelInfo[]>();
  for (const m of enabled) groups.set(m.provider_name, [...(groups.get(m.provider_name) ?? []), m]);
  const effective = props.override ?? props.profileModel;
  const current = props.models.find((m) => m.id === effective);
  const thinkingOn = props.thinking?.enabled ?? props.profileThinking;
  const caps = (m: ModelInfo) =>
    [
      t('chat.ctxTokens', { n: kTokens(m.context_window) }),
      m.supports_thinking ? t('chat.capThinking') : '',
      m.supports_tools ? t('chat.capTools') : '',
      m.supports_vision ? t('chat.capVision') : '',
    ]
      .filter(Boolean)
      .join(' · ');
  return (
    <div className="model-picker">
      <label htmlFor={id} className="sr-only">
        {t('chat.model')}
      </label>
      <select
        id={id}
        value={props.override ?? ''}
        disabled={props.disabled}
        onChange={(e) => props.onModel(e.target.value || null)}
        title={current ? caps(current) : undefined}
      >
        <option value="">{t('chat.profileModel', { model: props.profileModel ?? t('common.none') })}</option>
        {[...groups].map(([provider, list]) => (
          <optgroup key={provider} label={provider}>
            {list.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} — {caps(m)}
              </option>
            ))}
          </optgroup>
        ))}
        {props.override && !enabled.some((m) => m.id === props.override) && (
          <option value={props.override}>{t('chat.unavailableModel', { model: props.override })}</option>
        )}
      </select>
      {current?.supports_thinking && (
        <label className="thinking-toggle">
          <input
            type="checkbox"
            checked={thinkingOn}
            disabled={props.disabled}
            onChange={(e) => props.onThinking(e.target.checked === props.profileThinking ? null : { enabled: e.target.checked })}
          />
          {t('chat.thinkingToggle')}
        </label>
      )}
    </div>
  );
}
