import { useT } from '../i18n/i18n';
import { DataTable } from '../ui/data-table';
import { MODEL_KIND_LIST, type ModelDraft, type ModelKind } from './provider-types';
import type { MessageKey } from '../i18n/i18n';

const KIND_LABELS: Record<ModelKind, MessageKey> = {
  chat: 'kb.modelKind.chat',
  embedding: 'kb.modelKind.embedding',
  rerank: 'kb.modelKind.rerank',
};

function toInt(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Every model field as an editable table row; errors the server names (models[N].field) show in place. */
export function ModelsEditor(props: {
  models: ModelDraft[];
  onChange(models: ModelDraft[]): void;
  fieldError(name: string): string | undefined;
}) {
  const t = useT();
  const update = (index: number, patch: Partial<ModelDraft>) =>
    props.onChange(props.models.map((m, i) => (i === index ? { ...m, ...patch } : m)));
  const cellError = (index: number, field: string) =>
    props.fieldError(`models[${index}].${field}`) ?? (field === 'id' ? props.fieldError(`models[${index}]`) : undefined);
  return (
    <div className="models-editor">
      <div className="section-head">
        <h3>{t('providers.models')}</h3>
        <button
          type="button"
          className="btn btn-small"
          onClick={() =>
            props.onChange([
              ...props.models,
              { id: '', kind: 'chat', supports_thinking: false, supports_tools: false, supports_vision: false },
            ])
          }
        >
          {t('providers.addModel')}
        </button>
      </div>
      {props.fieldError('models') && (
        <p className="field-error" role="alert">
          {props.fieldError('models')}
        </p>
      )}
      {props.models.length === 0 ? (
        <p className="muted small">{t('providers.noModels')}</p>
      ) : (
        <DataTable
          className="table-compact"
          titled={false}
          head={
            <tr>
              <th>{t('providers.modelId')}</th>
              <th>{t('providers.modelName')}</th>
              <th>{t('kb.modelKind')}</th>
              <th>{t('providers.contextWindow')}</th>
              <th>{t('providers.maxOutput')}</th>
              <th>{t('providers.thinking')}</th>
              <th>{t('providers.tools')}</th>
              <th>{t('providers.vision')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {props.models.map((m, i) => {
            const n = i + 1;
            const numberCell = (field: 'context_window' | 'max_output_tokens', label: string) => {
              const error = cellError(i, field);
              return (
                <td>
                  <input
                    type="number"
                    min={1}
                    aria-label={`${label} ${n}`}
                    aria-invalid={error ? true : undefined}
                    value={m[field] ?? ''}
                    onChange={(e) => update(i, { [field]: toInt(e.target.value) })}
                  />
                  {error && (
                    <p className="field-error" role="alert">
                      {error}
                    </p>
                  )}
                </td>
              );
            };
            return (
              <tr key={i}>
                <td>
                  <input
                    aria-label={`${t('providers.modelId')} ${n}`}
                    aria-invalid={cellError(i, 'id') ? true : undefined}
                    value={m.id}
                    onChange={(e) => update(i, { id: e.target.value })}
                    spellCheck={false}
                  />
                  {cellError(i, 'id') && (
                    <p className="field-error" role="alert">
                      {cellError(i, 'id')}
                    </p>
                  )}
                </td>
                <td>
                  <input
                    aria-label={`${t('providers.modelName')} ${n}`}
                    value={m.name ?? ''}
                    onChange={(e) => update(i, { name: e.target.value || undefined })}
                  />
                </td>
                <td>
                  <select
                    aria-label={`${t('kb.modelKind')} ${n}`}
                    aria-invalid={cellError(i, 'kind') ? true : undefined}
                    value={m.kind}
                    onChange={(e) => update(i, { kind: e.target.value as ModelKind })}
                  >
                    {MODEL_KIND_LIST.map((k) => (
                      <option key={k} value={k}>
                        {t(KIND_LABELS[k])}
                      </option>
                    ))}
                  </select>
                  {cellError(i, 'kind') && (
                    <p className="field-error" role="alert">
                      {cellError(i, 'kind')}
                    </p>
                  )}
                </td>
                {numberCell('context_window', t('providers.contextWindow'))}
                {numberCell('max_output_tokens', t('providers.maxOutput'))}
                <td className="center">
                  <input
                    type="checkbox"
                    aria-label={`${t('providers.thinking')} ${n}`}
                    checked={m.supports_thinking}
                    disabled={m.kind !== 'chat'}
                    onChange={(e) => update(i, { supports_thinking: e.target.checked })}
                  />
                </td>
                <td className="center">
                  <input
                    type="checkbox"
                    aria-label={`${t('providers.tools')} ${n}`}
                    checked={m.supports_tools}
                    disabled={m.kind !== 'chat'}
                    onChange={(e) => update(i, { supports_tools: e.target.checked })}
                  />
                </td>
                <td className="center">
                  <input
                    type="checkbox"
                    aria-label={`${t('providers.vision')} ${n}`}
                    checked={m.supports_vision}
                    disabled={m.kind !== 'chat'}
                    onChange={(e) => update(i, { supports_vision: e.target.checked })}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn-ghost btn-small"
                    aria-label={`${t('providers.removeModel')} ${m.id || n}`}
                    onClick={() => props.onChange(props.models.filter((_, j) => j !== i))}
                  >
                    ✕
                  </button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </div>
  );
}
