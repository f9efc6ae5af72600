import { useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from '../api/client';
import { path, type ProfileView } from '../api/resources';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import type { ProvidersResponse } from '../providers/provider-types';
import { Dialog, ErrorBanner, Field, Toggle, useFormErrors } from '../ui/controls';
import { focusFirstInvalid, useDiscardGuard } from '../ui/form-kit';

export interface ProfileDraft {
  id: string;
  model: string;
  system_prompt: string;
  language: 'zh' | 'en' | 'system';
  timeout_seconds: number;
  thinking: { enabled: boolean; budget: number };
  cache: { enabled: boolean; cache_threshold: number };
  compression: { enabled: boolean; threshold_percent: number; cooldown_seconds: number };
}

export const NEW_PROFILE: ProfileDraft = {
  id: '',
  model: '',
  system_prompt: '',
  language: 'system',
  timeout_seconds: 600,
  thinking: { enabled: false, budget: 8192 },
  cache: { enabled: true, cache_threshold: 3 },
  compression: { enabled: true, threshold_percent: 80, cooldown_seconds: 60 },
};

export function draftFromProfile(p: ProfileView): ProfileDraft {
  return {
    id: p.id,
    model: p.model_is_default ? '' : (p.model ?? ''),
    system_prompt: p.system_prompt ?? '',
    language: p.language,
    timeout_seconds: p.timeout_seconds,
    thinking: { enabled: p.thinking.enabled, budget: p.thinking.budget },
    cache: { enabled: p.cache.enabled, cache_threshold: p.cache.cache_threshold },
    compression: { ...NEW_PROFILE.compression, ...p.compression },
  };
}

const FIELDS = [
  'id',
  'model',
  'system_prompt',
  'language',
  'timeout_seconds',
  'thinking',
  'thinking.enabled',
  'thinking.budget',
  'cache',
  'cache.enabled',
  'cache.cache_threshold',
  'compression',
  'compression.enabled',
  'compression.threshold_percent',
  'compression.cooldown_seconds',
];

const num = (v: string) => (v.trim() === '' ? NaN : Number(v));

export function ProfileEditor(props: {
  existing?: ProfileView;
  initial: ProfileDraft;
  providers: ProvidersResponse | undefined;
  onClose(): void;
  onSaved(): void;
}) {
  const t = useT();
  const api = useApi();
  const [d, setDraft] = useState<ProfileDraft>(props.initial);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const editing = props.existing !== undefined;
  const formRef = useRef<HTMLFormElement>(null);
  const guard = useDiscardGuard(JSON.stringify(d) !== JSON.stringify(props.initial), props.onClose);
  const setD = (next: ProfileDraft) => {
    setDraft(next);
    errors.clearGeneral();
  };

  /** Every range the API enforces, checked at once and named by the field's visible label. */
  const check = (x: ProfileDraft): Record<string, string> => {
    const bad: Record<string, string> = {};
    const positive = (key: string, value: number, label: string) => {
      if (!(Number.isInteger(value) && value > 0)) bad[key] = t('mgmt.positiveInt', { field: label });
    };
    if (!editing && !/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/.test(x.id))
      bad.id = x.id ? t('profiles.idHint') : t('mgmt.required', { field: t('profiles.id') });
    if (new TextEncoder().encode(x.system_prompt).length > 32 * 1024)
      bad.system_prompt = t('mgmt.tooLong32k', { field: t('profiles.systemPrompt') });
    positive('timeout_seconds', x.timeout_seconds, t('profiles.timeout'));
    positive('thinking.budget', x.thinking.budget, t('profiles.thinkingBudget'));
    positive('cache.cache_threshold', x.cache.cache_threshold, t('profiles.cacheThreshold'));
    const pct = x.compression.threshold_percent;
    if (!(Number.isInteger(pct) && pct >= 50 && pct <= 95))
      bad['compression.threshold_percent'] = t('mgmt.range', { field: t('profiles.threshold'), min: 50, max: 95 });
    const cool = x.compression.cooldown_seconds;
    if (!(Number.isInteger(cool) && cool >= 0))
      bad['compression.cooldown_seconds'] = t('mgmt.nonNegative', { field: t('profiles.cooldown') });
    return bad;
  };

  // A profile talks to a chat model: embedding and rerank models are not offered.
  const models = (props.providers?.providers ?? []).flatMap((p) =>
    p.models
      .filter((m) => (m.kind ?? 'chat') === 'chat')
      .map((m) => ({
        value: `${p.id}:${m.id}`,
        label: `${p.name} · ${m.name || m.id}`,
        thinking: m.supports_thinking,
        enabled: p.enabled,
      })),
  );
  const effective = d.model || props.providers?.effective_default || '';
  const picked = models.find((m) => m.value === effective);
  const thinkingAllowed = picked?.thinking ?? false;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    const bad = check(d);
    if (Object.keys(bad).length) {
      errors.setMany(bad);
      focusFirstInvalid(formRef.current);
      return;
    }
    setBusy(true);
    const { id, model, ...rest } = d;
    const body = { ...rest, ...(model ? { model } : {}), thinking: { ...d.thinking, enabled: d.thinking.enabled && thinkingAllowed } };
    try {
      if (editing) await api.put(path.profile(props.existing!.id), body);
      // Creating never replaces: a profile with that id is a 409 shown at the id.
      else await api.post(path.profiles, { id, ...body });
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 409 && !editing) errors.setLocal('id', t('mgmt.profileExists', { id }));
      else errors.report(err, FIELDS);
      focusFirstInvalid(formRef.current);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={editing ? t('profiles.editTitle', { id: props.existing!.id }) : t('profiles.addTitle')}
      open
      onClose={guard.requestClose}
      wide
    >
      <form onSubmit={(e) => void submit(e)} noValidate ref={formRef}>
        <div className="dialog-body">
          <div className="grid-2">
            <Field label={t('profiles.id')} error={errors.fieldError('id')} hint={editing ? undefined : t('profiles.idHint')}>
              <input
                value={d.id}
                onChange={(e) => setD({ ...d, id: e.target.value })}
                disabled={editing}
                autoFocus={!editing}
                spellCheck={false}
              />
            </Field>
            <Field label={t('profiles.model')} error={errors.fieldError('model')} hint={t('profiles.modelHint')}>
              <select value={d.model} onChange={(e) => setD({ ...d, model: e.target.value })}>
                <option value="">{t('profiles.defaultModel', { model: props.providers?.effective_default ?? t('common.none') })}</option>
                {models.map((m) => (
                  <option key={m.value} value={m.value}>
                    {m.label}
                    {m.enabled ? '' : ` (${t('common.disabled')})`}
                  </option>
                ))}
              </select>
            </Field>
            <Field label={t('profiles.language')} error={errors.fieldError('language')}>
              <select value={d.language} onChange={(e) => setD({ ...d, language: e.target.value as ProfileDraft['language'] })}>
                <option value="system">{t('profiles.langSystem')}</option>
                <option value="en">English</option>
                <option value="zh">中文</option>
              </select>
            </Field>
            <Field label={t('profiles.timeout')} error={errors.fieldError('timeout_seconds')} hint={t('profiles.timeoutHint')}>
              <input
                type="number"
                min={1}
                value={Number.isNaN(d.timeout_seconds) ? '' : d.timeout_seconds}
                onChange={(e) => setD({ ...d, timeout_seconds: num(e.target.value) })}
              />
            </Field>
          </div>
          <Field label={t('profiles.systemPrompt')} error={errors.fieldError('system_prompt')} hint={t('profiles.systemPromptHint')}>
            <textarea rows={4} value={d.system_prompt} onChange={(e) => setD({ ...d, system_prompt: e.target.value })} />
          </Field>

          <fieldset className="group">
            <legend>{t('profiles.thinking')}</legend>
            <Toggle
              label={t('profiles.thinkingEnabled')}
              checked={d.thinking.enabled && thinkingAllowed}
              disabled={!thinkingAllowed}
              onChange={(enabled) => setD({ ...d, thinking: { ...d.thinking, enabled } })}
              hint={thinkingAllowed ? undefined : t('profiles.thinkingUnsupported')}
            />
            {errors.fieldError('thinking.enabled') && (
              <p className="field-error" role="alert">
                {errors.fieldError('thinking.enabled')}
              </p>
            )}
            <Field label={t('profiles.thinkingBudget')} error={errors.fieldError('thinking.budget')} hint={t('profiles.tokens')}>
              <input
                type="number"
                min={1}
                value={Number.isNaN(d.thinking.budget) ? '' : d.thinking.budget}
                disabled={!thinkingAllowed || !d.thinking.enabled}
                onChange={(e) => setD({ ...d, thinking: { ...d.thinking, budget: num(e.target.value) } })}
              />
            </Field>
          </fieldset>

          <fieldset className="group">
            <legend>{t('profiles.cache')}</legend>
            <Toggle
              label={t('profiles.cacheEnabled')}
              checked={d.cache.enabled}
              onChange={(enabled) => setD({ ...d, cache: { ...d.cache, enabled } })}
            />
            <Field
              label={t('profiles.cacheThreshold')}
              error={errors.fieldError('cache.cache_threshold')}
              hint={t('profiles.cacheThresholdHint')}
            >
              <input
                type="number"
                min={1}
                value={Number.isNaN(d.cache.cache_threshold) ? '' : d.cache.cache_threshold}
                disabled={!d.cache.enabled}
                onChange={(e) => setD({ ...d, cache: { ...d.cache, cache_threshold: num(e.target.value) } })}
              />
            </Field>
          </fieldset>

          <fieldset className="group">
            <legend>{t('profiles.compression')}</legend>
            <Toggle
              label={t('profiles.compressionEnabled')}
              checked={d.compression.enabled}
              onChange={(enabled) => setD({ ...d, compression: { ...d.compression, enabled } })}
            />
            <Field
              label={t('profiles.threshold')}
              error={errors.fieldError('compression.threshold_percent')}
              hint={t('profiles.thresholdHint', { value: d.compression.threshold_percent })}
            >
              <input
                type="range"
                min={50}
                max={95}
                step={1}
                value={d.compression.threshold_percent}
                disabled={!d.compression.enabled}
                onChange={(e) => setD({ ...d, compression: { ...d.compression, threshold_percent: Number(e.target.value) } })}
              />
            </Field>
            <Field
              label={t('profiles.cooldown')}
              error={errors.fieldError('compression.cooldown_seconds')}
              hint={t('profiles.cooldownHint')}
            >
              <input
                type="number"
                min={0}
                value={Number.isNaN(d.compression.cooldown_seconds) ? '' : d.compression.cooldown_seconds}
                disabled={!d.compression.enabled}
                onChange={(e) => setD({ ...d, compression: { ...d.compression, cooldown_seconds: num(e.target.value) } })}
              />
            </Field>
          </fieldset>
          <ErrorBanner error={errors.general} />
          {guard.bar}
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={guard.requestClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {editing ? t('common.save') : t('profiles.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
