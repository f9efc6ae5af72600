import { useState } from 'react';
import { useApi } from '../api/session';
import { path, type WorkspaceEntry } from '../api/resources';
import { useT } from '../i18n/i18n';
import { EmptyState, Field, useFormErrors, ErrorBanner } from '../ui/controls';
import type { ModelInfo } from './model-info';

/** No provider yet: the chat cannot answer; lead to the providers page. */
export function NoProvider() {
  const t = useT();
  return (
    <EmptyState title={t('chat.setupNoProvider')}>
      <p>{t('chat.setupNoProviderText')}</p>
      <a className="btn btn-primary" href="#/providers">
        {t('chat.addProvider')}
      </a>
    </EmptyState>
  );
}

/** No model resolves for the workspace: say which setting is missing and where to set it. */
export function NoModel({ info }: { info: ModelInfo }) {
  const t = useT();
  return (
    <EmptyState title={t('chat.setupNoModel')}>
      <p>{info.profileId ? t('chat.noModelProfile', { profile: info.profileId }) : t('chat.noModelDefault')}</p>
      <div className="button-row">
        {info.profileId && (
          <a className="btn btn-primary" href="#/profiles">
            {t('chat.openProfiles')}
          </a>
        )}
        <a className={`btn ${info.profileId ? '' : 'btn-primary'}`} href="#/providers">
          {t('chat.openProviders')}
        </a>
      </div>
    </EmptyState>
  );
}

/** No workspace yet: create one right here. */
export function NoWorkspace({ onCreated }: { onCreated(w: WorkspaceEntry): void }) {
  const t = useT();
  const api = useApi();
  const [name, setName] = useState(t('chat.defaultWorkspace'));
  const errors = useFormErrors();
  return (
    <EmptyState title={t('chat.setupNoWorkspace')}>
      <p>{t('chat.setupNoWorkspaceText')}</p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          errors.clear();
          api.post<WorkspaceEntry>(path.workspaces, { name: name.trim() }).then(onCreated, (err: unknown) => errors.report(err, ['name']));
        }}
      >
        <Field label={t('chat.workspaceName')} error={errors.fieldError('name')} className="grow">
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={!name.trim()}>
          {t('chat.createWorkspace')}
        </button>
      </form>
      <ErrorBanner error={errors.general} />
    </EmptyState>
  );
}
