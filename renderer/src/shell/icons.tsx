import type { Route } from '../nav/routes';

// Small stroke icons for the sidebar (24x24 grid), drawn here to avoid an icon dependency.
const PATHS: Record<Route, string> = {
  chat: 'M4 5h16v11H9l-5 4z',
  knowledge: 'M4 5a2 2 0 0 1 2-2h5v16H6a2 2 0 0 0-2 2zM20 5a2 2 0 0 0-2-2h-5v16h5a2 2 0 0 1 2 2zM4 5v16M20 5v16',
  providers: 'M4 6h16M4 12h16M4 18h10M18 16l2 2-2 2',
  profiles: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 20c1.5-4 4.5-6 8-6s6.5 2 8 6',
  workspaces: 'M3 7h7l2 2h9v10H3zM3 7V5h6',
  tools: 'M14 7l3-3 3 3-3 3M10 17l-3 3-3-3 3-3M7 14l10-7',
  skills: 'M12 3l2.5 5 5.5.8-4 3.9.9 5.5L12 15.6 7.1 18.2l.9-5.5-4-3.9 5.5-.8z',
  logs: 'M5 4h14v16H5zM8 8h8M8 12h8M8 16h5',
  backups: 'M4 7c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zM4 7v10c0 1.7 3.6 3 8 3s8-1.3 8-3V7M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  swap: 'M4 8h13l-3-3M20 16H7l3 3',
  connection: 'M9 15l6-6M7 11l-2 2a3 3 0 0 0 4 4l2-2M17 13l2-2a3 3 0 0 0-4-4l-2 2',
};

export function NavIcon({ route }: { route: Route }) {
  return (
    <svg
      className="nav-icon"
      viewBox="0 0 24 24"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={PATHS[route]} />
    </svg>
  );
}
