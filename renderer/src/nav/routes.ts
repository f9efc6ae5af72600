import { useEffect, useState } from 'react';
import type { MessageKey } from '../i18n/i18n';

export const ROUTES = [
  'chat',
  'knowledge',
  'providers',
  'profiles',
  'workspaces',
  'tools',
  'skills',
  'logs',
  'backups',
  'swap',
  'connection',
] as const;
export type Route = (typeof ROUTES)[number];

export const ROUTE_LABELS: Record<Route, MessageKey> = {
  chat: 'nav.chat',
  knowledge: 'nav.knowledge',
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
  // A page may keep more after its name (`#/knowledge/<kb-id>`): the first segment picks the page.
  const name = location.hash.replace(/^#\/?/, '').split('/')[0];
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
