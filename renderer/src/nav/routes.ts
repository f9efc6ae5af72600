import { useEffect, useState } from 'react';
import type { MessageKey } from '../i18n/i18n';

export const ROUTES = ['chat', 'providers', 'profiles', 'workspaces', 'tools', 'skills', 'logs', 'backups', 'swap', 'connection'] as const;
export type Route = (typeof ROUTES)[number];

export const ROUTE_LABELS: Record<Route, MessageKey> = {
  chat: 'nav.chat',
  providers: 'nav.providers',
  profiles: 'nav.profiles',
  workspaces: 'nav.workspaces',
  tools: 'nav.tools',
  skills: 'nav.skills',
  logs: 'nav.logs',
  backups: 'nav.backups',
  swap: 'nav.swap',
  connection: 'nav.connection',
};

function fromHash(): Route {
  const name = location.hash.replace(/^#\/?/, '');
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : 'chat';
}

/** Hash routing: works under app://, file:// and the backend's own origin alike. */
export function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState<Route>(fromHash);
  useEffect(() => {
    const onHash = () => setRoute(fromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return [route, (next) => (location.hash = `#/${next}`)];
}
