import type { ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { NavIcon } from './icons';
import { KeyboardLayer } from '../keyboard/keyboard-layer';
import { ThemePicker } from '../theme/theme-picker';
import { LanguagePicker } from '../i18n/language-picker';
import { LiveIndicator } from './live-indicator';
import { OfflineGate } from './offline-gate';
import { ROUTE_LABELS, ROUTES, type Route } from '../nav/routes';

export function Layout(props: { route: Route; onNavigate(route: Route): void; baseUrl: string; children: ReactNode }) {
  const t = useT();
  return (
    <div className="layout">
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          <div>
            <p className="brand-name">{t('app.name')}</p>
            <p className="brand-sub" title={props.baseUrl}>
              {props.baseUrl.replace(/^https?:\/\//, '')}
            </p>
          </div>
        </div>
        <nav aria-label={t('nav.main')}>
          <ul>
            {ROUTES.map((route) => (
              <li key={route}>
                <a
                  href={`#/${route}`}
                  className={route === props.route ? 'active' : undefined}
                  aria-current={route === props.route ? 'page' : undefined}
                  title={t(ROUTE_LABELS[route])}
                >
                  <NavIcon route={route} />
                  <span className="nav-label">{t(ROUTE_LABELS[route])}</span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <KeyboardLayer navigate={props.onNavigate} />
          <LiveIndicator />
          <LanguagePicker />
          <ThemePicker />
        </div>
      </aside>
      <main className="content" id="main">
        <OfflineGate baseUrl={props.baseUrl}>{props.children}</OfflineGate>
      </main>
    </div>
  );
}
