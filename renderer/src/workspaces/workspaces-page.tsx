import { useState, type FormEvent } from 'react';
import { fileErrors, listOf, path, type ProfileView, type WorkspaceEntry } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useI18n } from '../i18n/i18n';
import {
  Card,
  ConfirmDialog,
  Dialog,
  EmptyState,
  ErrorBanner,
  Field,
  Notice,
  PageHeader,
  useFormErrors,
  ListTable,
  RowButton,
} from '../ui/controls';
import { KbChoice } from '../knowledge/kb-choice';

function ProfileSelect(props: {
  value: string | null;
  profiles: ProfileView[];
  onChange(v: string | null): void;
  label?: string;
  disabled?: boolean;
  // Passed by <Field>, which ties its visible label to the control by id.
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const { t } = useI18n();
  return (
    <select
      id={props.id}
      aria-invalid={props['aria-invalid']}
      aria-describedby={props['aria-describedby']}
      aria-label={props.label}
      value={props.value ?? ''}
      disabled={props.disabled}
      onChange={(e) => props.onChange(e.target.value || null)}
    >
      <option value="">{t('workspaces.noProfile')}</option>
      {props.profiles.map((p) => (
        <option key={p.id} value={p.id}>
          {p.id}
        </option>
      ))}
    </select>
  );
}

export function WorkspacesPage() {
  const { t, locale } = useI18n();
  const api = useApi();
  const workspaces = useResource<unknown>(path.workspaces, ['workspaces', 'profiles']);
  const profiles = useResource<unknown>(path.profiles, ['profiles']);
  const profileList = listOf<ProfileView>(profiles.data, 'profiles');
  const list = listOf<WorkspaceEntry>(workspaces.data, 'workspaces');
  const [name, setName] = useState('');
  const [profileId, setProfileId] = useState<string | null>(null);
  const create = useFormErrors();
  const [rowError, setRowError] = useState<unknown>();
  const [renaming, setRenaming] = useState<WorkspaceEntry | null>(null);
  const [deleting, setDeleting] = useState<WorkspaceEntry | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    create.clear();
    try {
      await api.post(path.workspaces, { name, profile_id: profileId });
      setName('');
      void workspaces.reload();
    } catch (err) {
      create.report(err, ['name', 'profile_id']);
    }
  };

  const bind = async (w: WorkspaceEntry, profile_id: string | null) => {
    setRowError(undefined);
    try {
      await api.put(path.workspace(w.id), { profile_id });
      void workspaces.reload();
    } catch (err) {
      setRowError(err);
    }
  };

  return (
    <>
      <PageHeader title={t('nav.workspaces')} subtitle={t('workspaces.subtitle')} />
      {fileErrors(workspaces.data).map((e) => (
        <Notice key={e.file} tone="error">
          {t('providers.fileProblem', { file: e.file, line: e.line ?? '?', message: e.message })}
        </Notice>
      ))}
      <ErrorBanner error={workspaces.error} />
      <Card title={t('workspaces.new')}>
        <form className="inline-form" onSubmit={(e) => void submit(e)} noValidate>
          <Field label={t('workspaces.name')} error={create.fieldError('name')} className="grow">
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('workspaces.namePlaceholder')} />
          </Field>
          <Field label={t('workspaces.profile')} error={create.fieldError('profile_id')}>
            <ProfileSelect value={profileId} profiles={profileList} onChange={setProfileId} />
          </Field>
          <button type="submit" className="btn btn-primary">
            {t('workspaces.create')}
          </button>
        </form>
        <ErrorBanner error={create.general} />
      </Card>
      <Card title={t('workspaces.all')}>
        <ErrorBanner error={rowError} />
        <ListTable
          loading={workspaces.loading && !workspaces.data}
          empty={list.length === 0 ? <EmptyState title={t('workspaces.empty')} /> : null}
          head={
            <tr>
              <th>{t('workspaces.name')}</th>
              <th>{t('workspaces.profile')}</th>
              <th className="col-optional">{t('workspaces.created')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {list.map((w) => (
            <tr key={w.id}>
              <td>
                <div className="cell-title">{w.name}</div>
                <div className="cell-sub mono">{w.id}</div>
              </td>
              <td>
                <ProfileSelect
                  label={t('workspaces.profileFor', { name: w.name })}
                  value={w.profile_id}
                  profiles={profileList}
                  onChange={(v) => void bind(w, v)}
                />
              </td>
              <td className="small muted col-optional">
                {w.created_at ? new Date(w.created_at).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en') : ''}
              </td>
              <td className="row-actions">
                <RowButton label={t('workspaces.renameNamed', { name: w.name })} onClick={() => setRenaming(w)}>
                  {t('common.edit')}
                </RowButton>
                <RowButton label={t('workspaces.deleteNamed', { name: w.name })} danger onClick={() => setDeleting(w)}>
                  {t('common.delete')}
                </RowButton>
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      {renaming && (
        <RenameDialog
          workspace={renaming}
          onClose={() => setRenaming(null)}
          onSaved={() => {
            setRenaming(null);
            void workspaces.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('workspaces.deleteTitle')}
        message={t('workspaces.deleteConfirm', { name: deleting?.name ?? '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(path.workspace(deleting!.id));
          void workspaces.reload();
        }}
      />
    </>
  );
}

/** Name and instructions (workspace.json holds the instructions; the list does not carry them). */
function RenameDialog(props: { workspace: WorkspaceEntry; onClose(): void; onSaved(): void }) {
  const { t } = useI18n();
  const api = useApi();
  const full = useResource<WorkspaceEntry & { instructions?: string; knowledge_bases?: string[] }>(path.workspace(props.workspace.id), []);
  const [name, setName] = useState(props.workspace.name);
  const [instructions, setInstructions] = useState<string | null>(null);
  const shown = instructions ?? full.data?.instructions ?? '';
  // DESIGN 13: every chat of the workspace searches these; unchanged unless the user ticks one.
  const [kbs, setKbs] = useState<string[] | null>(null);
  const kbsShown = kbs ?? full.data?.knowledge_bases ?? [];
  const errors = useFormErrors();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    if (new TextEncoder().encode(shown).length > 32 * 1024) {
      errors.setLocal('instructions', t('mgmt.tooLong32k', { field: t('workspaces.instructions') }));
      return;
    }
    try {
      await api.put(path.workspace(props.workspace.id), {
        name,
        ...(instructions === null ? {} : { instructions }),
        ...(kbs === null ? {} : { knowledge_bases: kbs }),
      });
      props.onSaved();
    } catch (err) {
      errors.report(err, ['name', 'instructions', 'knowledge_bases']);
    }
  };
  return (
    <Dialog title={t('workspaces.editTitle')} open onClose={props.onClose} wide>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="dialog-body">
          <Field label={t('workspaces.name')} error={errors.fieldError('name')}>
            <input value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          </Field>
          <Field label={t('workspaces.instructions')} error={errors.fieldError('instructions')} hint={t('workspaces.instructionsHint')}>
            <textarea rows={5} value={shown} disabled={full.loading && !full.data} onChange={(e) => setInstructions(e.target.value)} />
          </Field>
          <KbChoice
            label={t('kb.workspaceKbs')}
            hint={t('kb.workspaceKbsHint')}
            value={kbsShown}
            onChange={setKbs}
            disabled={full.loading && !full.data}
          />
          {errors.fieldError('knowledge_bases') && (
            <p className="field-error" role="alert">
              {errors.fieldError('knowledge_bases')}
            </p>
          )}
          <ErrorBanner error={errors.general} />
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary">
            {t('common.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
