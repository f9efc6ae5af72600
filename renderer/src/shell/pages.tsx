import { lazy, Suspense } from 'react';
import { ChatPage } from '../chat/chat-page';
import { isQuickAskWindow, QuickAskPage } from '../quick-ask/quick-ask-page';
import { Layout } from './layout';
import { useRoute, type Route } from '../nav/routes';
import { assertNever } from './assert-never';
import { OwnerOnly } from '../api/device-role';

// Only the chat is on the first load (the first-load JS budget, docs/benchmarks.md): every other
// page is its own chunk, fetched when it is first opened.
const BackupsPage = lazy(() => import('../backups/backups-page').then((m) => ({ default: m.BackupsPage })));
const LogsPage = lazy(() => import('../logs/logs-page').then((m) => ({ default: m.LogsPage })));
const ProvidersPage = lazy(() => import('../providers/providers-page').then((m) => ({ default: m.ProvidersPage })));
const ProfilesPage = lazy(() => import('../profiles/profiles-page').then((m) => ({ default: m.ProfilesPage })));
const WorkspacesPage = lazy(() => import('../workspaces/workspaces-page').then((m) => ({ default: m.WorkspacesPage })));
const ToolServersPage = lazy(() => import('../tools/tool-servers-page').then((m) => ({ default: m.ToolServersPage })));
const SkillsPage = lazy(() => import('../skills/skills-page').then((m) => ({ default: m.SkillsPage })));
const SwapPage = lazy(() => import('../swap/swap-page').then((m) => ({ default: m.SwapPage })));
const KnowledgePage = lazy(() => import('../knowledge/knowledge-page'));
const ConnectionPage = lazy(() => import('./connection-page').then((m) => ({ default: m.ConnectionPage })));

function page(route: Route, baseUrl: string) {
  switch (route) {
    case 'chat':
      return <ChatPage />;
    case 'knowledge':
      return <KnowledgePage />;
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

export function Pages({ baseUrl }: { baseUrl: string }) {
  // The desktop app's quick-ask window loads the same bundle at #/quick-ask: no sidebar there.
  return isQuickAskWindow() ? <QuickAskPage /> : <MainPages baseUrl={baseUrl} />;
}

function MainPages({ baseUrl }: { baseUrl: string }) {
  const [route, navigate] = useRoute();
  return (
    <Layout route={route} onNavigate={navigate} baseUrl={baseUrl}>
      <Suspense fallback={null}>{page(route, baseUrl)}</Suspense>
    </Layout>
  );
}
