import { createContext, useContext, type ReactNode } from 'react';
import type { DeviceRole, DevicesResponse } from '../../../backend/pairing/pairing-api.js';
import { useT, type MessageKey } from '../i18n/i18n';
import { useResource } from './session';

const RoleContext = createContext<DeviceRole | null>(null);

/** This device's role (DESIGN 16), read from the device list; null until known. */
export function RoleProvider({ children }: { children: ReactNode }) {
  const devices = useResource<DevicesResponse>('/api/selfhost/devices', []);
  const role = devices.data?.devices.find((d) => d.current)?.role ?? null;
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** False only once the backend says this device is a member (the backend enforces it either way). */
export function useIsOwner(): boolean {
  return useContext(RoleContext) !== 'member';
}

export type OwnerArea = 'providers' | 'profiles' | 'tools' | 'skills' | 'backups' | 'logs' | 'devices';

const AREA_KEYS: Record<OwnerArea, MessageKey> = {
  providers: 'role.area.providers',
  profiles: 'role.area.profiles',
  tools: 'role.area.tools',
  skills: 'role.area.skills',
  backups: 'role.area.backups',
  logs: 'role.area.logs',
  devices: 'role.area.devices',
};

/** Says why a member cannot change (or, for the log, see) `area`. */
export function MemberNote({ area }: { area: OwnerArea }) {
  const t = useT();
  return (
    <p className="banner banner-info member-note" role="note">
      {t('role.memberNote', { what: t(AREA_KEYS[area]) })}{' '}
      {/* Which devices are owners is on the Connection page. The link is also the page's one
          keyboard stop when every control is disabled, so a long read-only page still scrolls
          from the keyboard (axe: scrollable-region-focusable). */}
      <a href="#/connection">{t('role.seeOwners')}</a>
    </p>
  );
}

/**
 * A settings page as a member sees it: readable, every control disabled (a disabled fieldset is
 * one switch for all of them), with the reason above. An owner sees the page unchanged.
 */
export function OwnerOnly({ area, children }: { area: OwnerArea; children: ReactNode }) {
  const owner = useIsOwner();
  const t = useT();
  if (owner) return <>{children}</>;
  if (area === 'logs') return <MemberNote area="logs" />;
  return (
    <>
      <MemberNote area={area} />
      <fieldset className="owner-only" disabled>
        <legend className="sr-only">{t('role.readOnly')}</legend>
        {children}
      </fieldset>
    </>
  );
}
