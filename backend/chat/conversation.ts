import type { Block, ConvMessage } from '../llm/llm-types.js';
import type { CompactionRecord, StoredMessage } from './chat-types.js';

type Item = StoredMessage | CompactionRecord;

export const UNFINISHED_CALL = 'The tool call was not run: the turn ended before it (cancelled, failed or step limit).';

export function summaryMessage(summary: string): ConvMessage {
  return {
    role: 'user',
    blocks: [
      {
        type: 'text',
        text: `<conversation_summary>\nSummary of the earlier part of this conversation:\n${summary}\n</conversation_summary>`,
      },
    ],
  };
}

/**
 * What the model sees: after the last compaction its summary replaces the older prefix (tool
 * results marked `keep`, such as loaded skill bodies, stay verbatim with their calls); every tool
 * call gets a result (a synthetic error for calls a stopped turn left unanswered).
 */
export function buildConversation(items: Item[]): ConvMessage[] {
  let from = 0;
  const head: ConvMessage[] = [];
  const lastCompaction = findLast(items, (i): i is CompactionRecord => i.role === 'system');
  if (lastCompaction) {
    const through = items.findIndex((i) => i.id === lastCompaction.through_message_id);
    from = through + 1;
    head.push(summaryMessage(lastCompaction.summary), ...keptPairs(items.slice(0, from)));
  }
  const messages = items.slice(from).filter((i): i is StoredMessage => i.role !== 'system');
  return [...head, ...answerEveryCall(messages.map(toConv).filter((m) => m.blocks.length > 0))];
}

function toConv(m: StoredMessage): ConvMessage {
  // Empty text/thinking fragments (a stream cut at its first byte) carry nothing.
  const blocks = m.blocks.filter(
    (b) => !((b.type === 'text' || b.type === 'thinking') && !b.text && !(b.type === 'thinking' && (b.redacted || b.encrypted))),
  );
  return { role: m.role, blocks };
}

/** Tool results to keep through compaction, each with the call it answers. */
export function keptPairs(items: Item[]): ConvMessage[] {
  const out: ConvMessage[] = [];
  const calls = new Map<string, Block>();
  for (const item of items) {
    if (item.role === 'system') continue;
    for (const b of item.blocks) {
      if (b.type === 'tool_call') calls.set(b.call_id, b);
      if (b.type === 'tool_result' && b.keep) {
        const call = calls.get(b.call_id);
        if (call) out.push({ role: 'assistant', blocks: [call] }, { role: 'tool', blocks: [b] });
      }
    }
  }
  return out;
}

function answerEveryCall(messages: ConvMessage[]): ConvMessage[] {
  const answered = new Set<string>();
  for (const m of messages) for (const b of m.blocks) if (b.type === 'tool_result') answered.add(b.call_id);
  const out: ConvMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    out.push(m);
    if (m.role !== 'assistant') continue;
    const missing = m.blocks.filter((b) => b.type === 'tool_call' && !answered.has(b.call_id));
    if (missing.length === 0) continue;
    const results: Block[] = missing.map((b) => ({
      type: 'tool_result',
      call_id: (b as { call_id: string }).call_id,
      ...((b as { provider_id?: string }).provider_id ? { provider_id: (b as { provider_id?: string }).provider_id } : {}),
      ok: false,
      content: UNFINISHED_CALL,
    }));
    const next = messages[i + 1];
    if (next?.role === 'tool') {
      next.blocks = [...next.blocks, ...results];
    } else out.push({ role: 'tool', blocks: results });
  }
  return out;
}

function findLast<T extends Item>(items: Item[], pred: (i: Item) => i is T): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (pred(item)) return item;
  }
  return undefined;
}

/** Completed rounds (a user message answered by the assistant) among these items. */
export function completedRounds(items: Item[]): number {
  let rounds = 0;
  let open = false;
  for (const i of items) {
    if (i.role === 'user') open = true;
    else if (i.role === 'assistant' && open && i.blocks.length > 0) {
      rounds += 1;
      open = false;
    }
  }
  return rounds;
}

/** A rough token count (4 characters a token) for what has not been measured yet. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}
