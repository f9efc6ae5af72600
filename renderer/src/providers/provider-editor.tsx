import { useState, type FormEvent } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field, Toggle, useFormErrors } from '../ui/controls';
import { ModelsEditor } from './models-editor';
import { BASE_URL_HINTS, PROVIDER_TYPE_LIST, TYPE_LABELS, type MaskedProvider, type ProviderDraft } from './provider-types';

const FIELDS = ['id', 'name', 'type', 'base_url', 'api_key', 'enabled', 'models'];

/** Create (no `existing`) or replace a provider. */
export function ProviderEditor(props: { existing?: MaskedProvider; initial: ProviderDraft; onClose(): void; onSaved(): void }) {
  const t = useT();
  const api = useApi();
  const [draft, setDraft] = useState<ProviderDraft>(props.initial);
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const set = (patch: Partial<ProviderDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const editing = props.existing !== undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    setBusy(true);
    const body: ProviderDraft = { ...draft, base_url: draft.base_url?.trim() || undefined };
    if (apiKey.trim()) body.api_key = apiKey.trim();
    else delete body.api_key;
    try {
      if (editing) await api.put(`/api/config/providers/${encodeURIComponent(props.existing!.id)}`, body);
      else await api.post('/api/config/providers', body);
      props.onSaved();
    } catch (err) {
      errors.report(err, FIELDS);
      const field = (err as { field?: string }).field;
      if (field?.startsWith('models[')) errors.setLocal(field, (err as Error).message);
    } finally {
      setBusy(false);
    }
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
      onClose={props.onClose}
      wide
    >
      <form onSubmit={submit} noValidate>
        <div className="dialog-body">
          <div className="grid-2">
            <Field label={t('providers.id')} error={errors.fieldError('id')} hint={editing ? undefined : t('providers.idHint')}>
              <input
                value={draft.id}
                onChange={(e) => set({ id: e.target.value })}
                disabled={editing}
                spellCheck={false}
                autoFocus={!editing}
              />
            </Field>
            <Field label={t('common.name')} error={errors.fieldError('name')}>
              <input value={draft.name} onChange={(e) => set({ name: e.target.value })} autoFocus={editing} />
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
          <ModelsEditor models={draft.models} onChange={(models) => set({ models })} fieldError={errors.fieldError} />
          <ErrorBanner error={errors.general} />
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={props.onClose}>
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
