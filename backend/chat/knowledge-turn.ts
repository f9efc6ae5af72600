// A turn's numbered sources (DESIGN 13/14): which knowledge bases are in play, how their passages
// reach the model, and the citations the final reply stores (web and knowledge share one numbering).
import type { ConvMessage, WebCitation } from '../llm/llm-types.js';
import type { KnowledgeReader } from '../knowledge/knowledge-api.js';
import { KnowledgeTurn } from '../knowledge/knowledge-tools.js';
import type { SourceNumbers } from '../tools/source-numbers.js';
import type { WebTurnTools } from '../web/web-tools.js';
import type { Citation, CompactionRecord, StoredMessage } from './chat-types.js';
import type { ResolvedModel } from './model-resolver.js';

/** What the engine hands a turn about knowledge: the reader and the workspace's KBs. */
export interface KnowledgeInput {
  reader: KnowledgeReader;
  /** The workspace's `knowledge_bases` (the user message may add its own). */
  workspaceKbs: string[];
}

/** The user message's text: what passages are retrieved for. */
function userText(message: StoredMessage): string {
  return message.blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * The knowledge of a turn: the workspace's KBs and those the user message carries (a regenerate
 * answers the same message, so it reuses them); null when none is in play or all are deleted.
 */
export async function prepareKnowledge(
  input: KnowledgeInput | null,
  items: (StoredMessage | CompactionRecord)[],
  model: ResolvedModel,
  numbers: SourceNumbers,
  signal: AbortSignal,
): Promise<KnowledgeTurn | null> {
  if (!input) return null;
  const last = items[items.length - 1];
  const user = last && last.role === 'user' ? last : undefined;
  const ids = [...input.workspaceKbs, ...(user?.knowledge_bases ?? [])];
  if (ids.length === 0) return null;
  return KnowledgeTurn.prepare(input.reader, ids, {
    offerTools: model.offerTools,
    contextWindow: model.contextWindow,
    userText: user ? userText(user) : '',
    numbers,
    signal,
  });
}

/**
 * The request with the knowledge context block ahead of the user message's own blocks. It is not
 * stored, and the system prompt stays the same from turn to turn (the provider's cache holds).
 */
export function withContextBlock(messages: ConvMessage[], block: string): ConvMessage[] {
  if (!block) return messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const out = [...messages];
    out[i] = { ...m, blocks: [{ type: 'text', text: block }, ...m.blocks] };
    return out;
  }
  return messages;
}

/**
 * The reply's numbered sources, by number: those the built-in tools numbered (web pages and
 * knowledge passages keep the numbers the model saw), then the provider's own search citations
 * after the last number the tools gave.
 */
export async function replyCitations(
  provider: Map<string, WebCitation>,
  web: WebTurnTools | null,
  knowledge: KnowledgeTurn | null,
  numbers: SourceNumbers,
  text: string,
): Promise<Citation[]> {
  const out: Citation[] = [];
  if (web) for (const s of web.citations(text)) out.push({ n: s.n, kind: 'web', url: s.url, title: s.title });
  if (knowledge) {
    for (const p of await knowledge.citations(text)) {
      out.push({
        n: p.n,
        kind: 'knowledge',
        kb_id: p.kb_id,
        source_id: p.source_id,
        chunk_id: p.chunk_id,
        name: p.name,
        ...(p.location ? { location: p.location } : {}),
      });
    }
  }
  const offset = numbers.count;
  [...provider.values()].forEach((c, i) => out.push({ n: offset + i + 1, kind: 'web', url: c.url, title: c.title }));
  return out.sort((a, b) => a.n - b.n);
}
