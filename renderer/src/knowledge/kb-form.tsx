import { useState, type FormEvent } from 'react';
import type { ModelInfo, ModelsResponse } from '../../../backend/chat/branch-api.js';
import { listOf } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field, useFormErrors } from '../ui/controls';
import { kbPath, type KnowledgeBase } from './knowledge-client';

/** The model catalog's entries of one kind (DESIGN 13: embedding and rerank models serve knowledge bases). */
export function useModelsOfKind(kind: ModelInfo['kind']): ModelInfo[] {
  const data = useResource<ModelsResponse>('/api/models', ['providers']).data;
  return listOf<ModelInfo>(data, 'models').filter((m) => (m.kind ?? 'chat') === kind && m.enabled);
}

/** A picker of the models of one kind; `none` is the choice that means "no model". */
function ModelSelect(props: {
  value: string;
  models: ModelInfo[];
  none: string;
  onChange(v: string): void;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const t = useT();
  const known = props.value === '' || props.models.some((m) => m.id === props.value);
  return (
    <select
      id={props.id}
      aria-invalid={props['aria-invalid']}
      aria-describedby={props['aria-describedby']}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      <option value="">{props.none}</option>
      {props.models.map((m) => (
        <option key={m.id} value={m.id}>
          {m.provider_name} · {m.name}
        </option>
      ))}
      {!known && <option value={props.value}>{t('kb.modelMissing', { model: props.value })}</option>}
    </select>
  );
}

/**
 * Create or edit a knowledge base: its name, description, and the embedding and rerank models
 * (only models marked with that kind are offered). Changing the embedding model re-embeds.
 */
export function KbFormDialog(props: { kb?: KnowledgeBase; onClose(): void; onSaved(kb: KnowledgeBase): void }) {
  const t = useT();
  const api = useApi();
  const embedders = useModelsOfKind('embedding');
  const rerankers = useModelsOfKind('rerank');
  const [name, setName] = useState(props.kb?.name ?? '');
  const [description, setDescription] = useState(props.kb?.description ?? '');
  const [embedding, setEmbedding] = useState(props.kb?.embedding?.model ?? '');
  const [rerank, setRerank] = useState(props.kb?.rerank?.model ?? '');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const editing = props.kb !== undefined;
  const embeddingChanged = editing && (props.kb?.embedding?.model ?? '') !== embedding;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    if (!name.trim()) return errors.setLocal('name', t('mgmt.required', { field: t('kb.name') }));
    const body = {
      name: name.trim(),
      description,
      embedding: embedding ? { model: embedding } : null,
      rerank: rerank ? { model: rerank } : null,
    };
    setBusy(true);
    try {
      const saved = editing
        ? await api.patch<KnowledgeBase>(kbPath.kb(props.kb!.id), body)
        : await api.post<KnowledgeBase>(kbPath.list, body);
      props.onSaved(saved);
    } catch (err) {
      errors.report(err, ['name', 'description', 'embedding', 'rerank', 'embedding.model', 'rerank.model']);
    } finally {
      setBusy(false);
    }
  };

  const modelError = (f: 'embedding' | 'rerank') => errors.fieldError(f) ?? errors.fieldError(`${f}.model`);
  return (
    <Dialog title={editing ? t('kb.editTitle') : t('kb.createTitle')} open onClose={props.onClose} wide>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="dialog-body">
          <Field label={t('kb.name')} error={errors.fieldError('name')}>
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('kb.namePlaceholder')} autoFocus />
          </Field>
          <Field label={t('kb.description')} error={errors.fieldError('description')}>
            <textarea rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
          <Field
            label={t('kb.embeddingModel')}
            error={modelError('embedding')}
            hint={
              embeddingChanged && props.kb?.embedding ? t('kb.reembedHint') : embedders.length ? t('kb.embeddingHint') : t('kb.noEmbedders')
            }
          >
            <ModelSelect value={embedding} models={embedders} none={t('kb.lexicalOnly')} onChange={setEmbedding} />
          </Field>
          <Field label={t('kb.rerankModel')} error={modelError('rerank')} hint={rerankers.length ? undefined : t('kb.noRerankers')}>
            <ModelSelect value={rerank} models={rerankers} none={t('kb.noRerank')} onChange={setRerank} />
          </Field>
          <ErrorBanner error={errors.general} />
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {editing ? t('common.save') : t('common.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
