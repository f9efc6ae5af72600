import { useState, type FormEvent } from 'react';
import { useApi } from '../api/session';
import { fromShell, shell } from '../platform/shell-bridge';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field, useFormErrors } from '../ui/controls';
import { kbPath, patternList, type KnowledgeSource } from './knowledge-client';

type Kind = 'folder' | 'url' | 'note';

/** "Add a folder" (owner only), "Add a URL", "Add a note": each a small dialog posting the JSON source. */
export function AddOther(props: { kbId: string; onAdded(source: KnowledgeSource): void; disabled?: boolean; folder: boolean }) {
  const t = useT();
  const [open, setOpen] = useState<Kind | null>(null);
  const labels: Record<Kind, string> = { folder: t('kb.addFolder'), url: t('kb.addUrl'), note: t('kb.addNote') };
  return (
    <div className="button-row kb-add-other">
      {/* A folder is read from the backend's disk: the owner's only (DESIGN 16). */}
      {(props.folder ? (['folder', 'url', 'note'] as const) : (['url', 'note'] as const)).map((k) => (
        <button key={k} type="button" className="btn" disabled={props.disabled} onClick={() => setOpen(k)}>
          {labels[k]}
        </button>
      ))}
      {open && (
        <SourceDialog
          kind={open}
          title={labels[open]}
          kbId={props.kbId}
          onClose={() => setOpen(null)}
          onAdded={(s) => {
            setOpen(null);
            props.onAdded(s);
          }}
        />
      )}
    </div>
  );
}

function SourceDialog(props: { kind: Kind; title: string; kbId: string; onClose(): void; onAdded(s: KnowledgeSource): void }) {
  const t = useT();
  const api = useApi();
  const errors = useFormErrors();
  const [path, setPath] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [url, setUrl] = useState('');
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const app = shell();

  const body = () => {
    switch (props.kind) {
      case 'folder': {
        const inc = patternList(include);
        const exc = patternList(exclude);
        return { kind: 'folder', path: path.trim(), ...(inc.length ? { include: inc } : {}), ...(exc.length ? { exclude: exc } : {}) };
      }
      case 'url':
        return { kind: 'url', url: url.trim() };
      case 'note':
        return { kind: 'note', title: title.trim(), text };
    }
  };
  const missing = (): Record<string, string> => {
    const req = (field: string, label: string, value: string) => (value.trim() ? {} : { [field]: t('mgmt.required', { field: label }) });
    if (props.kind === 'folder') return req('path', t('kb.folderPath'), path);
    if (props.kind === 'url') return req('url', t('kb.url'), url);
    return { ...req('title', t('kb.noteTitle'), title), ...req('text', t('kb.noteText'), text) };
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    const problems = missing();
    if (Object.keys(problems).length) return errors.setMany(problems);
    setBusy(true);
    try {
      props.onAdded(await api.post<KnowledgeSource>(kbPath.sources(props.kbId), body()));
    } catch (err) {
      errors.report(err, ['path', 'include', 'exclude', 'url', 'title', 'text']);
    } finally {
      setBusy(false);
    }
  };

  const pickFolder = async () => {
    if (!app) return;
    try {
      const chosen = await fromShell(app.folders.pick());
      if (chosen) setPath(chosen);
    } catch (err) {
      errors.report(err, []);
    }
  };

  return (
    <Dialog title={props.title} open onClose={props.onClose} wide>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="dialog-body">
          {props.kind === 'folder' && (
            <>
              <div className="kb-folder-row">
                <Field label={t('kb.folderPath')} error={errors.fieldError('path')} hint={t('kb.folderHint')} className="grow">
                  <input value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} autoFocus placeholder="/home/me/notes" />
                </Field>
                {app && (
                  <button type="button" className="btn" onClick={() => void pickFolder()}>
                    {t('kb.chooseFolder')}
                  </button>
                )}
              </div>
              <Field label={t('kb.include')} error={errors.fieldError('include')} hint={t('kb.includeHint')}>
                <input value={include} onChange={(e) => setInclude(e.target.value)} spellCheck={false} placeholder="**/*.md, docs/**" />
              </Field>
              <Field label={t('kb.exclude')} error={errors.fieldError('exclude')} hint={t('kb.excludeHint')}>
                <input value={exclude} onChange={(e) => setExclude(e.target.value)} spellCheck={false} placeholder="drafts/**" />
              </Field>
            </>
          )}
          {props.kind === 'url' && (
            <Field label={t('kb.url')} error={errors.fieldError('url')} hint={t('kb.urlHint')}>
              <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} spellCheck={false} autoFocus placeholder="https://" />
            </Field>
          )}
          {props.kind === 'note' && (
            <>
              <Field label={t('kb.noteTitle')} error={errors.fieldError('title')}>
                <input value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
              </Field>
              <Field label={t('kb.noteText')} error={errors.fieldError('text')}>
                <textarea rows={8} value={text} onChange={(e) => setText(e.target.value)} />
              </Field>
            </>
          )}
          <ErrorBanner error={errors.general} />
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {t('common.add')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
