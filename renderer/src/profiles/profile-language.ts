import { useEffect } from 'react';
import { listOf, path, type ProfileView, type WorkspaceEntry } from '../api/resources';
import { useResource } from '../api/session';
import { useI18n } from '../i18n/i18n';

/**
 * The UI follows a profile's `language` when the user picked "Automatic": the profile of the
 * first workspace, else the profile named `default`, else the only profile.
 */
export function useProfileLanguage(): void {
  const { setProfileLanguage } = useI18n();
  const profiles = useResource<unknown>(path.profiles, ['profiles']);
  const workspaces = useResource<unknown>(path.workspaces, ['workspaces']);
  useEffect(() => {
    const list = listOf<ProfileView>(profiles.data, 'profiles');
    const bound = listOf<WorkspaceEntry>(workspaces.data, 'workspaces').find((w) => w.profile_id)?.profile_id;
    const chosen = list.find((p) => p.id === bound) ?? list.find((p) => p.id === 'default') ?? (list.length === 1 ? list[0] : undefined);
    setProfileLanguage(chosen?.language ?? null);
  }, [profiles.data, workspaces.data, setProfileLanguage]);
}
