import { useState } from 'react';
import { ApiFailure } from '../api/client';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Badge, Dialog, Field, Notice } from '../ui/controls';
import { CATALOG, catalogServer, type CatalogEntry } from './catalog';

/**
 * Well-known tool servers with one-click add. Each card says what the server can do on this
 * machine; the filesystem and git servers ask for their folder (the system picker in the app).
 */
export function CatalogDialog(props: { filePath: string; existing: string[]; onClose(): void; onAdded(name: string): void }) {
  const t = useT();
  const [open, setOpen] = useState<CatalogEntry | null>(null);
  const [added, setAdded] = useState<string[]>([]);
  return (
    <Dialog title={t('catalog.title')} open onClose={props.onClose} wide>
      <div className="dialog-body">
        <p className="muted">{t('catalog.intro')}</p>
        <ul className="catalog-grid" aria-label={t('catalog.title')}>
          {CATALOG.map((entry) => {
            const taken = props.existing.includes(entry.id) || added.includes(entry.id);
            return (
              <li key={entry.id} className="catalog-item" aria-labelledby={`catalog-${entry.id}`}>
                <h3 id={`catalog-${entry.id}`}>{t(entry.title)}</h3>
                <p>{t(entry.can)}</p>
                <p className="muted">
                  <Badge tone="gray">{entry.runner}</Badge> {t(entry.runner === 'npx' ? 'catalog.needsNode' : 'catalog.needsUv')}
                </p>
                {open?.id === entry.id ? (
                  <CatalogAdd
                    entry={entry}
                    filePath={props.filePath}
                    onCancel={() => setOpen(null)}
                    onAdded={(name) => {
                      setAdded((a) => [...a, entry.id, name]);
                      setOpen(null);
                      props.onAdded(name);
                    }}
                  />
                ) : taken ? (
                  <Badge tone="green">{t('catalog.added')}</Badge>
                ) : (
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => setOpen(entry)}
                    aria-label={t('catalog.addNamed', { name: t(entry.title) })}
                  >
                    {t('common.add')}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}

/** The name and, where needed, the folder; then the create-only API. */
function CatalogAdd(props: { entry: CatalogEntry; filePath: string; onCancel(): void; onAdded(name: string): void }) {
  const t = useT();
  const api = useApi();
  const [name, setName] = useState(props.entry.id);
  const [folder, setFolder] = useState('');
  const [error, setError] = useState<{ field: 'name' | 'folder' | null; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const app = shell();
  const pick = async () => {
    const chosen = await fromShell(app!.folders.pick()).catch(() => null);
    if (chosen) setFolder(chosen);
  };
  const add = async () => {
    if (!name.trim()) return setError({ field: 'name', message: t('tools.nameRequired') });
    if (props.entry.folder && !folder.trim()) return setError({ field: 'folder', message: t('catalog.folderRequired') });
    setBusy(true);
    try {
      await api.post(`${props.filePath}/servers`, { name: name.trim(), server: catalogServer(props.entry, folder) });
      props.onAdded(name.trim());
    } catch (err) {
      const exists = err instanceof ApiFailure && err.code === 'already_exists';
      setError({ field: exists ? 'name' : null, message: exists ? t('mgmt.toolExists', { name: name.trim() }) : (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="catalog-add">
      <Field label={t('tools.name')} error={error?.field === 'name' ? error.message : undefined}>
        <input value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} />
      </Field>
      {props.entry.folder && (
        <Field label={t('catalog.folder')} hint={t('catalog.folderHint')} error={error?.field === 'folder' ? error.message : undefined}>
          <input value={folder} onChange={(e) => setFolder(e.target.value)} spellCheck={false} placeholder="/home/me/notes" />
        </Field>
      )}
      {error?.field === null && <Notice tone="error">{error.message}</Notice>}
      <div className="button-row compact">
        {props.entry.folder && app && (
          <button type="button" className="btn btn-small" onClick={() => void pick()}>
            {t('catalog.chooseFolder')}
          </button>
        )}
        <button type="button" className="btn btn-small" onClick={props.onCancel}>
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void add()}>
          {t('catalog.addServer')}
        </button>
      </div>
    </div>
  );
}
