import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import type { SearchHit } from './chat-api.js';
import type { SessionStore } from './session-store.js';

const MAX_HITS = 100;
const CONTEXT = 40;

function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - CONTEXT);
  const end = Math.min(text.length, at + length + CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** Case-insensitive full-text search over the text of every session of every workspace, newest sessions first. */
export async function searchSessions(stores: { workspaces: WorkspaceStore }, sessions: SessionStore, q: string): Promise<SearchHit[]> {
  const needle = q.toLowerCase();
  const hits: SearchHit[] = [];
  const { workspaces } = await stores.workspaces.list();
  for (const ws of workspaces) {
    for (const meta of await sessions.list(ws.id)) {
      const log = await sessions.readLog(ws.id, meta.id);
      for (const item of log.items) {
        const texts =
          item.role === 'system'
            ? [item.summary]
            : item.blocks.flatMap((b) =>
                b.type === 'text' || b.type === 'thinking' ? [b.text] : b.type === 'tool_result' ? [b.content] : [],
              );
        for (const text of texts) {
          const at = text.toLowerCase().indexOf(needle);
          if (at < 0) continue;
          hits.push({ workspace_id: ws.id, session_id: meta.id, message_id: item.id, snippet: snippet(text, at, needle.length) });
          if (hits.length >= MAX_HITS) return hits;
          break;
        }
      }
    }
  }
  return hits;
}
