import { useId, useState } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Card, ErrorBanner, Notice } from '../ui/controls';
import type { ProvidersResponse } from './provider-types';

/** The default provider and model, picked among enabled providers' models. */
export function DefaultsCard({ data }: { data: ProvidersResponse }) {
  const t = useT();
  const api = useApi();
  const id = useId();
  const current = data.defaults.provider && data.defaults.model ? `${data.defaults.provider}:${data.defaults.model}` : '';
  // The user's pick, valid only while the saved default is the one it was made against.
  const [picked, setPicked] = useState<{ against: string; value: string } | null>(null);
  const choice = picked && picked.against === current ? picked.value : current;
  const setChoice = (value: string) => setPicked({ against: current, value });
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const options = data.providers
    .filter((p) => p.enabled)
    // Only chat models can be the default (embedding and rerank models serve knowledge bases).
    .flatMap((p) =>
      p.models
        .filter((m) => (m.kind ?? 'chat') === 'chat')
        .map((m) => ({ value: `${p.id}:${m.id}`, label: `${p.name} · ${m.name || m.id}` })),
    );

  // The effective default may name a provider that was disabled since: chats on the default would fail.
  const [effProvider, ...effModel] = (data.effective_default ?? '').split(':');
  const disabledOwner = data.effective_default ? data.providers.find((p) => p.id === effProvider && !p.enabled) : undefined;

  const save = async () => {
    const [provider, ...rest] = choice.split(':');
    setError(undefined);
    setSaved(false);
    try {
      await api.put('/api/config/defaults', { provider, model: rest.join(':') });
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Card title={t('providers.defaults')}>
      <div className="defaults-row">
        <div className="field grow">
          <label htmlFor={id}>{t('providers.defaultModel')}</label>
          <select
            id={id}
            value={choice}
            onChange={(e) => {
              setChoice(e.target.value);
              setSaved(false);
            }}
            disabled={options.length === 0}
          >
            <option value="">{options.length ? t('providers.pickDefault') : t('providers.noModelsYet')}</option>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="btn" onClick={() => void save()} disabled={!choice || choice === current}>
          {t('common.save')}
        </button>
        <div className="defaults-effective">
          <span className="muted small">{t('providers.effective')}</span>
          <code>{data.effective_default ?? t('common.none')}</code>
        </div>
      </div>
      {disabledOwner && (
        <Notice tone="warning">{t('mgmt.defaultDisabled', { model: effModel.join(':'), provider: disabledOwner.name })}</Notice>
      )}
      {saved && <Notice tone="success">{t('common.saved')}</Notice>}
      <ErrorBanner error={error} />
    </Card>
  );
}
