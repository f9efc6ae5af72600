import { addUsage, zeroUsage } from '../llm/llm-types.js';
import { newId, type LogRecord, type SessionMeta } from './chat-types.js';

/** A file that cannot be imported: 400 naming the first offending path (`[3].mapping.abc.message`). */
export class ImportError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** One conversation, converted and checked, ready to be written as a session. */
export interface ImportedSession {
  title: string;
  created_at: string;
  updated_at: string;
  records: LogRecord[];
  activeLeaf: string | null;
  messageCount: number;
  branches: number;
  model: string | null;
  /** What was left out, and how often. */
  notes: Map<string, number>;
  /** Files the messages refer to (a service-session export carries them), checked against their hash. */
  files?: { id: string; name: string; bytes: Buffer; path: string }[];
}

/** Fresh message ids, never the same twice within one session (many are made within a millisecond). */
export class IdMaker {
  private readonly used = new Set<string>();
  next(): string {
    let id = newId('m');
    while (this.used.has(id)) id = newId('m');
    this.used.add(id);
    return id;
  }
}

/** Unix seconds (ChatGPT's create_time) as ISO, or undefined when absent or out of range. */
export function isoFromSeconds(v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 32503680000) return undefined;
  return new Date(Math.round(v * 1000)).toISOString();
}

/** session.json for an imported session. */
export function importedMeta(s: ImportedSession, extra: Partial<SessionMeta> = {}): SessionMeta {
  let usage = zeroUsage();
  for (const r of s.records) if (r.t === 'message' && r.m.usage) usage = addUsage(usage, { ...zeroUsage(), ...r.m.usage });
  return {
    id: newId('s'),
    title: s.title,
    created_at: s.created_at,
    updated_at: s.updated_at,
    model: s.model,
    message_count: s.messageCount,
    usage,
    last_compaction_at: null,
    auto_title: false,
    active_leaf: s.activeLeaf,
    ...extra,
  };
}

/** "2 system messages (…), 1 empty message" */
export function describeNotes(notes: Map<string, number>): string {
  return [...notes].map(([reason, n]) => `${n} × ${reason}`).join('; ');
}
