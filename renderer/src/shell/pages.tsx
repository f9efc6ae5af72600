import { lazy, Suspense } from 'react';
import { ChatPage } from '../chat/chat-page';
import { BackupsPage } from '../backups/backups-page';
import { isQuickAskWindow, QuickAskPage } from '../quick-ask/quick-ask-page';
import { LogsPage } from '../logs/logs-page';
import { ProvidersPage } from '../providers/providers-page';
import { ProfilesPage } from '../profiles/profiles-page';
import { WorkspacesPage } from '../workspaces/workspaces-page';
import { ToolServersPage } from '../tools/tool-servers-page';
import { SkillsPage } from '../skills/skills-page';
import { SwapPage } from '../swap/swap-page';
import { ConnectionPage } from './connection-page';
import { Layout } from './layout';
import { useRoute, type Route } from '../nav/routes';
import { assertNever } from './assert-never';
import { OwnerOnly } from '../api/device-role';
import { useT } from '../i18n/i18n';

// Loaded on first visit: the page is not part of the first-load bundle.
const KnowledgePage = lazy(() => import('../knowledge/knowledge-page'));

function page(route: Route, baseUrl: string) {
  switch (route) {
    case 'chat':
      return <ChatPage />;
    case 'knowledge':
      return (
        <Suspense fallback={<PageLoading />}>
          <KnowledgePage />
        </Suspense>
      );
    case 'providers':
      return (
        <OwnerOnly area="providers">
          <ProvidersPage />
        </OwnerOnly>
      );
    case 'profiles':
      return (
        <OwnerOnly area="profiles">
          <ProfilesPage />
        </OwnerOnly>
      );
    case 'workspaces':
      return <WorkspacesPage />;
    case 'tools':
      return (
        <OwnerOnly area="tools">
          <ToolServersPage />
        </OwnerOnly>
      );
    case 'skills':
      return (
        <OwnerOnly area="skills">
          <SkillsPage />
        </OwnerOnly>
      );
    case 'logs':
      return (
        <OwnerOnly area="logs">
          <LogsPage />
        </OwnerOnly>
      );
    case 'backups':
      return (
        <OwnerOnly area="backups">
          <BackupsPage />
        </OwnerOnly>
      );
    case 'swap':
      return <SwapPage />;
    case 'connection':
      return <ConnectionPage baseUrl={baseUrl} />;
    default:
      return assertNever(route);
  }
}

function PageLoading() {
  const t = useT();
  return (
    <p className="muted" role="status">
      {t('common.loading')}
    </p>
  );
}

export function Pages({ baseUrl }: { baseUrl: string }) {
  // The desktop app's quick-ask window loads the same bundle at #/quick-ask: no sidebar there.
  return isQuickAskWindow() ? <QuickAskPage /> : <MainPages baseUrl={baseUrl} />;
}

function MainPages({ baseUrl }: { baseUrl: string }) {
  const [route, navigate] = useRoute();
  return (
    <Layout route={route} onNavigate={navigate} baseUrl={baseUrl}>
      {page(route, baseUrl)}
    </Layout>
  );
}
