import { isCompaction, type Block, type ChatMessage, type CompactionRecord, type StoredMessage, type Usage } from './chat-types';
import { addUsage } from './live-turn';
import type { Citation } from '../../../backend/chat/chat-api.js';

/** What the conversation shows: a user message, one reply (assistant + tool messages of a turn), or a compaction note. */
export type Item =
  | { kind: 'user'; key: string; ids: string[]; message: ChatMessage }
  | {
      kind: 'reply';
      key: string;
      ids: string[];
      messages: ChatMessage[];
      blocks: Block[];
      citations: Citation[];
      usage?: Usage;
      model?: string;
    }
  | { kind: 'compaction'; key: string; ids: string[]; record: CompactionRecord };

/** The text of a message's text blocks. */
export function textOf(blocks: Block[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}

function replyOf(messages: ChatMessage[]): Item {
  let usage: Usage | undefined;
  let model: string | undefined;
  for (const m of messages) {
    if (m.usage) usage = addUsage(usage, m.usage);
    if (m.model) model = m.model;
  }
  return {
    kind: 'reply',
    key: `r-${messages[0].id}`,
    ids: messages.map((m) => m.id),
    messages,
    blocks: messages.flatMap((m) => m.blocks),
    citations: messages.flatMap((m) => m.citations ?? []),
    usage,
    model,
  };
}

// Items are reused while their messages are the same objects, so a long conversation re-renders
// only what changed (memoised rows compare items by identity).
const cache = new WeakMap<StoredMessage, { sources: StoredMessage[]; item: Item }>();

function reuse(sources: StoredMessage[], make: () => Item): Item {
  const old = cache.get(sources[0]);
  if (old && old.sources.length === sources.length && old.sources.every((s, i) => s === sources[i])) return old.item;
  const item = make();
  cache.set(sources[0], { sources, item });
  return item;
}

/** Groups messages into items: user message, reply (assistant + tool messages), compaction note. */
export function buildItems(messages: StoredMessage[]): Item[] {
  const items: Item[] = [];
  let group: ChatMessage[] = [];
  const flush = () => {
    if (!group.length) return;
    const g = group;
    items.push(reuse(g, () => replyOf(g)));
    group = [];
  };
  messages.forEach((m, i) => {
    if (isCompaction(m)) {
      flush();
      const key = `c-${m.id ?? `${m.through_message_id}-${i}`}`;
      items.push(reuse([m], () => ({ kind: 'compaction', key, ids: m.id ? [m.id] : [], record: m })));
    } else if (m.role === 'user') {
      flush();
      items.push(reuse([m], () => ({ kind: 'user', key: `u-${m.id}`, ids: [m.id], message: m })));
    } else {
      group.push(m);
    }
  });
  flush();
  return items;
}

/** Tool results by call id, so a card shows its call and its result together. */
export function resultsById(blocks: Block[]): Map<string, Extract<Block, { type: 'tool_result' }>> {
  const map = new Map<string, Extract<Block, { type: 'tool_result' }>>();
  for (const b of blocks) if (b.type === 'tool_result') map.set(b.call_id, b);
  return map;
}
