import type { Translate } from '../i18n/i18n';
import { isHttpUrl } from '../ui/form-kit';
import type { ProviderDraft } from './provider-types';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The visible label of a field the API names by path: `models[0].context_window` → "Context window 1". */
export function labelFor(field: string, t: Translate): string {
  const m = /^models\[(\d+)\](?:\.(\w+))?$/.exec(field);
  if (m) {
    const n = Number(m[1]) + 1;
    const key = {
      context_window: 'providers.contextWindow',
      max_output_tokens: 'providers.maxOutput',
      name: 'providers.modelName',
    } as const;
    return `${t(key[m[2] as keyof typeof key] ?? 'providers.modelId')} ${n}`;
  }
  const top = {
    id: 'providers.id',
    name: 'common.name',
    type: 'providers.type',
    base_url: 'providers.baseUrl',
    api_key: 'providers.apiKey',
  } as const;
  return field in top ? t(top[field as keyof typeof top]) : field;
}

/** Every problem the form can see before sending, each at its field, in the UI language. */
export function checkProvider(d: ProviderDraft, t: Translate): Record<string, string> {
  const bad: Record<string, string> = {};
  if (!d.name.trim()) bad.name = t('mgmt.required', { field: t('common.name') });
  if (!d.id.trim()) bad.id = t('mgmt.required', { field: t('providers.id') });
  else if (!ID.test(d.id)) bad.id = t('providers.idHint');
  if (d.base_url) {
    if (!isHttpUrl(d.base_url)) bad.base_url = t('connect.badUrl');
  }
  d.models.forEach((m, i) => {
    if (!m.id.trim()) bad[`models[${i}].id`] = t('mgmt.required', { field: labelFor(`models[${i}].id`, t) });
    for (const key of ['context_window', 'max_output_tokens'] as const) {
      const v = m[key];
      if (v !== undefined && !(Number.isInteger(v) && v > 0))
        bad[`models[${i}].${key}`] = t('mgmt.positiveInt', { field: labelFor(`models[${i}].${key}`, t) });
    }
  });
  return bad;
}
