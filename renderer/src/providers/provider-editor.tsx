import { useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from '../api/client';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field, Toggle, useFormErrors } from '../ui/controls';
import { focusFirstInvalid, idFromName, normalizeBaseUrl, useDiscardGuard } from '../ui/form-kit';
import { ModelsEditor } from './models-editor';
import { PROVIDER_PRESETS } from './provider-presets';
import { checkProvider, labelFor } from './provider-checks';
import { ProviderTestPanel } from './provider-test';
import { BASE_URL_HINTS, PROVIDER_TYPE_LIST, TYPE_LABELS, type MaskedProvider, type ProviderDraft } from './provider-types';

/** Create (no `existing`) or replace a provider; editing also tests the saved settings at once. */
export function ProviderEditor(props: { existing?: MaskedProvider; initial: ProviderDraft; onClose(): void; onSaved(): void }) {
  const t = useT();
  const api = useApi();
  const [draft, setDraft] = useState<ProviderDraft>(props.initial);
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [preset, setPreset] = useState('custom');
  // The id follows the name until the user types an id of their own.
  const [idTouched, setIdTouched] = useState(props.existing !== undefined || props.initial.id !== '');
  const errors = useFormErrors();
  const formRef = useRef<HTMLFormElement>(null);
  const editing = props.existing !== undefined;
  const dirty = apiKey !== '' || JSON.stringify(draft) !== JSON.stringify(props.initial);
  const guard = useDiscardGuard(dirty, props.onClose);
  const set = (patch: Partial<ProviderDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    for (const key of Object.keys(patch)) errors.clearField(key);
  };

  const choosePreset = (key: string) => {
    setPreset(key);
    const p = PROVIDER_PRESETS.find((x) => x.key === key);
    if (!p) return;
    const name = draft.name.trim() && !PROVIDER_PRESETS.some((x) => x.name === draft.name) ? draft.name : p.name;
    set({ type: p.type, base_url: p.base_url, name, ...(idTouched ? {} : { id: idFromName(name) }) });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    const body: ProviderDraft = { ...draft, name: draft.name.trim(), base_url: normalizeBaseUrl(draft.base_url ?? '') || undefined };
    setDraft((d) => ({ ...d, base_url: body.base_url }));
    const problems = checkProvider(body, t);
    if (Object.keys(problems).length) {
      errors.setMany(problems);
      focusFirstInvalid(formRef.current);
      return;
    }
    if (apiKey.trim()) body.api_key = apiKey.trim();
    else delete body.api_key;
    setBusy(true);
    try {
      if (editing) await api.put(`/api/config/providers/${encodeURIComponent(props.existing!.id)}`, body);
      else await api.post('/api/config/providers', body);
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiFailure && err.field) {
        // The server names a path (models[0].context_window): show it at that field, under its visible label.
        const label = labelFor(err.field, t);
        errors.setMany({ [err.field]: err.message.replace(err.field, label) });
        focusFirstInvalid(formRef.current);
      } else errors.report(err, []);
    } finally {
      setBusy(false);
    }
  };

  /** Models the test imported on the backend join the form, so saving it does not drop them. */
  const mergeImported = async () => {
    const fresh = await api.get<MaskedProvider>(`/api/config/providers/${encodeURIComponent(props.existing!.id)}`);
    setDraft((d) => ({
      ...d,
      models: [
        ...d.models,
        ...fresh.models
          .filter((m) => !d.models.some((x) => x.id === m.id))
          .map((m) => ({
            ...m,
            supports_thinking: m.supports_thinking ?? false,
            supports_tools: m.supports_tools ?? false,
            supports_vision: m.supports_vision ?? false,
          })),
      ],
    }));
  };

  const keyHint = (() => {
    const p = props.existing;
    if (!p) return t('providers.keyHintNew');
    if (p.api_key_source === 'env') return t('providers.keyHintEnv', { name: `${p.env_prefix}_API_KEY` });
    if (p.api_key_set) return t('providers.keyHintKeep', { hint: p.api_key_hint ?? '' });
    return t('providers.keyHintNew');
  })();

  return (
    <Dialog
      title={editing ? t('providers.editTitle', { name: props.existing!.name }) : t('providers.addTitle')}
      open
      onClose={guard.requestClose}
      wide
    >
      <form onSubmit={(e) => void submit(e)} noValidate ref={formRef}>
        <div className="dialog-body">
          {!editing && (
            <Field label={t('mgmt.preset')}>
              <select value={preset} onChange={(e) => choosePreset(e.target.value)} autoFocus>
                <option value="custom">{t('mgmt.presetCustom')}</option>
                {PROVIDER_PRESETS.map((p) => (
                  <option key={p.key} value={p.key}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <div className="grid-2">
            <Field label={t('common.name')} error={errors.fieldError('name')}>
              <input
                value={draft.name}
                onChange={(e) => set({ name: e.target.value, ...(idTouched ? {} : { id: idFromName(e.target.value) }) })}
                autoFocus={editing}
              />
            </Field>
            <Field label={t('providers.id')} error={errors.fieldError('id')} hint={editing ? undefined : t('providers.idHint')}>
              <input
                value={draft.id}
                onChange={(e) => {
                  setIdTouched(true);
                  set({ id: e.target.value });
                }}
                disabled={editing}
                spellCheck={false}
              />
            </Field>
            <Field label={t('providers.type')} error={errors.fieldError('type')}>
              <select value={draft.type} onChange={(e) => set({ type: e.target.value as ProviderDraft['type'] })}>
                {PROVIDER_TYPE_LIST.map((type) => (
                  <option key={type} value={type}>
                    {t(TYPE_LABELS[type])}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label={t('providers.baseUrl')}
              error={errors.fieldError('base_url')}
              hint={
                props.existing?.base_url_source === 'env'
                  ? t('providers.baseUrlEnv', { name: `${props.existing.env_prefix}_BASE_URL` })
                  : t('providers.baseUrlHint', { example: BASE_URL_HINTS[draft.type] })
              }
            >
              <input
                value={draft.base_url ?? ''}
                onChange={(e) => set({ base_url: e.target.value })}
                onBlur={() => draft.base_url && set({ base_url: normalizeBaseUrl(draft.base_url) })}
                placeholder={BASE_URL_HINTS[draft.type]}
                spellCheck={false}
              />
            </Field>
            <Field label={t('providers.apiKey')} error={errors.fieldError('api_key')} hint={keyHint}>
              <input
                type="password"
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
                autoComplete="off"
                placeholder={props.existing?.api_key_hint ?? ''}
              />
            </Field>
            <div className="field field-toggle">
              <Toggle label={t('common.enabled')} checked={draft.enabled} onChange={(enabled) => set({ enabled })} />
            </div>
          </div>
          {editing && <ProviderTestPanel provider={props.existing!} onImported={() => void mergeImported()} />}
          <ModelsEditor models={draft.models} onChange={(models) => setDraft((d) => ({ ...d, models }))} fieldError={errors.fieldError} />
          <ErrorBanner error={errors.general} />
          {guard.bar}
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={guard.requestClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {editing ? t('common.save') : t('providers.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
