import { useEffect, useState, type FormEvent } from 'react';
import { ApiFailure } from '../api/client';
import { listOf, path, type SkillDocument, type SkillSummary } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useDiscardGuard } from '../ui/form-kit';
import { useT } from '../i18n/i18n';
import {
  Badge,
  Card,
  ConfirmDialog,
  Dialog,
  EmptyState,
  ErrorBanner,
  Field,
  PageHeader,
  useFormErrors,
  ListTable,
  RowButton,
} from '../ui/controls';

const template = (name: string) =>
  `---\nname: ${name || 'my-skill'}\ndescription: What this skill does and when to use it.\n---\n\n# ${name || 'My skill'}\n\nInstructions for the assistant.\n`;

export function SkillsPage() {
  const t = useT();
  const api = useApi();
  const skills = useResource<unknown>(path.skills, ['skills']);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const list = listOf<SkillSummary>(skills.data, 'skills');
  return (
    <>
      <PageHeader
        title={t('nav.skills')}
        subtitle={t('skills.subtitle')}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            {t('skills.add')}
          </button>
        }
      />
      <ErrorBanner error={skills.error} />
      <Card title={t('skills.all')}>
        <ListTable
          loading={skills.loading && !skills.data}
          empty={
            list.length === 0 ? (
              <EmptyState title={t('skills.empty')}>
                <p className="muted">{t('skills.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('skills.name')}</th>
              <th>{t('skills.description')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {list.map((s) => (
            <tr key={s.name}>
              <td className="cell-title mono">{s.name}</td>
              <td>
                {s.description ?? <span className="muted">—</span>} {s.errors?.length ? <Badge tone="red">{s.errors[0]}</Badge> : null}
              </td>
              <td className="row-actions">
                <RowButton label={t('skills.editNamed', { name: s.name })} onClick={() => setEditing(s.name)}>
                  {t('common.edit')}
                </RowButton>
                <RowButton label={t('skills.deleteNamed', { name: s.name })} danger onClick={() => setDeleting(s.name)}>
                  {t('common.delete')}
                </RowButton>
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      {editing && (
        <SkillEditor
          name={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void skills.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('skills.deleteTitle')}
        message={t('common.confirmDelete', { name: deleting ?? '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(path.skill(deleting!));
          void skills.reload();
        }}
      />
    </>
  );
}

function SkillEditor(props: { name: string | null; onClose(): void; onSaved(): void }) {
  const t = useT();
  const api = useApi();
  const [name, setName] = useState(props.name ?? '');
  const [content, setContent] = useState(props.name ? '' : template(''));
  const [loaded, setLoaded] = useState(props.name === null);
  const [original, setOriginal] = useState(props.name ? '' : template(''));
  const guard = useDiscardGuard(props.name === null ? name !== '' || content !== template('') : content !== original, props.onClose);
  const errors = useFormErrors();

  useEffect(() => {
    if (!props.name) return;
    api.get<SkillDocument>(path.skill(props.name)).then(
      (doc) => {
        setContent(doc.content);
        setOriginal(doc.content);
        setLoaded(true);
      },
      (err) => errors.report(err, []),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load the document once per skill; `errors` only reports
  }, [api, props.name]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return errors.setLocal('name', t('skills.nameRule'));
    try {
      // A new skill is created only if the name is free; an edit replaces (the old text goes to trash).
      if (props.name === null) await api.create(path.skill(name), { content });
      else await api.put(path.skill(name), { content });
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'already_exists') errors.setLocal('name', t('mgmt.skillExists', { name }));
      else if (err instanceof ApiFailure && err.field && err.field !== 'name') errors.setLocal('content', err.message);
      else errors.report(err, ['name', 'content']);
    }
  };

  return (
    <Dialog title={props.name ? t('skills.editTitle', { name: props.name }) : t('skills.addTitle')} open onClose={guard.requestClose} wide>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="dialog-body">
          <Field label={t('skills.name')} error={errors.fieldError('name')} hint={t('skills.nameRule')}>
            <input
              value={name}
              disabled={props.name !== null}
              onChange={(e) => {
                // An untouched template follows the name (the front matter must match the folder).
                if (content === template(name)) setContent(template(e.target.value));
                setName(e.target.value);
              }}
              autoFocus={props.name === null}
              spellCheck={false}
            />
          </Field>
          <Field label={t('skills.content')} error={errors.fieldError('content')} hint={t('skills.contentHint')}>
            <textarea
              className="code-area"
              rows={16}
              value={content}
              disabled={!loaded}
              onChange={(e) => setContent(e.target.value)}
              spellCheck={false}
            />
          </Field>
          <ErrorBanner error={errors.general} />
          {guard.bar}
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={guard.requestClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={!loaded}>
            {t('common.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
