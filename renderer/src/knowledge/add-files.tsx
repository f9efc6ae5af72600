import { useRef, useState, type DragEvent } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { MAX_SOURCE_BYTES, uploadSource, type KnowledgeSource } from './knowledge-client';
import { formatBytes } from './source-rows';

interface Upload {
  key: string;
  name: string;
  fraction: number;
  error?: string;
}

let counter = 0;

/**
 * Drop files here or pick them: each is uploaded as the raw body with its name (the backend tells
 * the type from the bytes). Upload progress shows until the backend answers with the new source,
 * whose ingestion then shows in the sources list.
 */
export function AddFiles(props: { kbId: string; onAdded(source: KnowledgeSource): void; disabled?: boolean }) {
  const t = useT();
  const api = useApi();
  const picker = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = (key: string, patch: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  const add = (files: File[]) => {
    for (const file of files) {
      const key = `u${++counter}`;
      if (file.size > MAX_SOURCE_BYTES) {
        setUploads((list) => [...list, { key, name: file.name, fraction: 0, error: t('kb.tooLarge', { size: formatBytes(file.size) }) }]);
        continue;
      }
      setUploads((list) => [...list, { key, name: file.name, fraction: 0 }]);
      const job = uploadSource(api, props.kbId, file, file.name, (fraction) => update(key, { fraction }));
      job.done.then(
        (source) => {
          setUploads((list) => list.filter((u) => u.key !== key));
          props.onAdded(source);
        },
        (err: Error) => update(key, { error: err.message }),
      );
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (!props.disabled) add(Array.from(e.dataTransfer.files));
  };

  return (
    <div>
      <div
        className={`kb-drop ${over ? 'is-over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid="kb-drop"
      >
        <p>{t('kb.dropHint')}</p>
        <p className="small muted">{t('kb.typesHint')}</p>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            add(Array.from(e.target.files ?? []));
            e.target.value = '';
          }}
        />
        <button type="button" className="btn" disabled={props.disabled} onClick={() => picker.current?.click()}>
          {t('kb.pickFiles')}
        </button>
      </div>
      {uploads.length > 0 && (
        <ul className="kb-uploads" aria-label={t('kb.uploads')}>
          {uploads.map((u) => (
            <li key={u.key}>
              <span className="kb-source-name">{u.name}</span>
              {u.error ? (
                <>
                  <span className="field-error" role="alert">
                    {u.error}
                  </span>
                  <button
                    type="button"
                    className="btn btn-small btn-link"
                    aria-label={t('kb.dismissNamed', { name: u.name })}
                    onClick={() => setUploads((list) => list.filter((x) => x.key !== u.key))}
                  >
                    ×
                  </button>
                </>
              ) : (
                <progress aria-label={t('kb.uploading', { name: u.name })} max={1} value={u.fraction} />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
