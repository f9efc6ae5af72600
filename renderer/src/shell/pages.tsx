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

function page(route: Route, baseUrl: string) {
  switch (route) {
    case 'chat':
      return <ChatPage />;
    case 'providers':
      return <ProvidersPage />;
    case 'profiles':
      return <ProfilesPage />;
    case 'workspaces':
      return <WorkspacesPage />;
    case 'tools':
      return <ToolServersPage />;
    case 'skills':
      return <SkillsPage />;
    case 'logs':
      return <LogsPage />;
    case 'backups':
      return <BackupsPage />;
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
      {page(route, baseUrl)}
    </Layout>
  );
}
