import { listOf } from '../api/resources';
import { useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { kbPath, type KnowledgeBase } from './knowledge-client';

/**
 * Knowledge bases to tick (a workspace's `knowledge_bases`, DESIGN 13). An id whose base was
 * deleted stays listed so the user can see it and untick it.
 */
export function KbChoice(props: { label: string; hint?: string; value: string[]; onChange(ids: string[]): void; disabled?: boolean }) {
  const t = useT();
  const data = useResource<unknown>(kbPath.list, ['knowledge']);
  const all = listOf<KnowledgeBase>(data.data, 'knowledge_bases');
  const gone = props.value.filter((id) => !all.some((kb) => kb.id === id));
  const toggle = (id: string, on: boolean) => props.onChange(on ? [...props.value, id] : props.value.filter((x) => x !== id));
  return (
    <fieldset className="group kb-choice" disabled={props.disabled}>
      <legend>{props.label}</legend>
      {props.hint && <p className="field-hint">{props.hint}</p>}
      {data.loading && !data.data ? (
        <p className="muted small">{t('common.loading')}</p>
      ) : all.length === 0 && gone.length === 0 ? (
        <p className="muted small">{t('kb.pickerNone')}</p>
      ) : (
        <>
          {all.map((kb) => (
            <label key={kb.id} className="toggle-row">
              <input type="checkbox" checked={props.value.includes(kb.id)} onChange={(e) => toggle(kb.id, e.target.checked)} />
              {kb.name}
            </label>
          ))}
          {gone.map((id) => (
            <label key={id} className="toggle-row">
              <input type="checkbox" checked onChange={() => toggle(id, false)} />
              <span className="mono">{t('kb.modelMissing', { model: id })}</span>
            </label>
          ))}
        </>
      )}
    </fieldset>
  );
}
