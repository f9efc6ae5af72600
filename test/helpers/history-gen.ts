import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';

/** Words for generated messages; `needle(i)` puts a findable word into message i. */
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(' ');

export const messageId = (i: number) => `m-${i.toString(36).padStart(9, '0')}gen000`;

export interface HistoryOptions {
  /** Messages (user and assistant alternating, a turn_end after each assistant message). */
  messages: number;
  /** Characters of text per message (about). */
  textChars?: number;
  /** Extra text for message i (e.g. a rare word to search for). */
  extra?: (i: number) => string;
  /** Epoch ms of the first message; one second apart. */
  start?: number;
}

/** The text of generated message i. */
export function messageText(i: number, chars: number, extra = ''): string {
  const words: string[] = [`message${i}`];
  let n = words[0].length;
  for (let w = 0; n < chars; w++) {
    const word = WORDS[(i * 7 + w * 3) % WORDS.length];
    words.push(word);
    n += word.length + 1;
  }
  return `${words.join(' ')}${extra ? ` ${extra}` : ''}`;
}

/**
 * Writes a session's events.jsonl and session.json as the backend writes them, streaming (the
 * history is never held in memory), so tests and the bench can make sessions of any size.
 */
export async function writeSession(dir: string, id: string, options: HistoryOptions): Promise<{ bytes: number }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const chars = options.textChars ?? 200;
  const start = options.start ?? Date.UTC(2026, 0, 1);
  const out = createWriteStream(path.join(dir, 'events.jsonl'), { mode: 0o600 });
  let bytes = 0;
  for (let i = 0; i < options.messages; i++) {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const turn = `t-${Math.floor(i / 2)
      .toString(36)
      .padStart(9, '0')}gen000`;
    const m = {
      id: messageId(i),
      role,
      created_at: new Date(start + i * 1000).toISOString(),
      blocks: [{ type: 'text', text: messageText(i, chars, options.extra?.(i)) }],
      turn_id: turn,
      ...(role === 'assistant' ? { model: 'gen:m1' } : {}),
    };
    let line = `${JSON.stringify({ t: 'message', m })}\n`;
    if (role === 'assistant') {
      const usage = { input: 10, output: 5, cache_read: 0, cache_write: 0, reasoning: 0 };
      line += `${JSON.stringify({ t: 'turn_end', turn_id: turn, at: m.created_at, stop_reason: 'end_turn', usage, model: 'gen:m1' })}\n`;
    }
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  const last = new Date(start + Math.max(0, options.messages - 1) * 1000).toISOString();
  const meta = {
    id,
    title: `Generated ${id}`,
    created_at: new Date(start).toISOString(),
    updated_at: last,
    model: 'gen:m1',
    message_count: options.messages,
    usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 },
    last_compaction_at: null,
    auto_title: false,
  };
  writeFileSync(path.join(dir, 'session.json'), `${JSON.stringify(meta, null, 2)}\n`, { mode: 0o600 });
  return { bytes };
}
