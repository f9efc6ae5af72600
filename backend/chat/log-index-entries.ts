import { readRange, type LogLine } from './log-lines.js';

/** The entries of `events.idx` (see log-index.ts): their layout, and how log lines become entries. */
export const ENTRY = 64;
const ID_AT = 16;
const ID_MAX = ENTRY - ID_AT;
/** Ids kept for dedup and parent lookups while indexing; an older parent is looked up in the file. */
const RECENT = 8192;
export const ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What an entry links to. `none`: a message without `parent_id` (a log written before branches) or
 * whose parent is not earlier in the log: it follows the message before it. `root`: `parent_id: null`.
 * `at`: the position of the parent message (of the through message for a compaction record).
 */
export type Link = { kind: 'none' } | { kind: 'root' } | { kind: 'at'; at: number };
const LINK_KINDS = ['none', 'root', 'at'] as const;

export interface IndexEntry {
  offset: number;
  role: Role;
  id: string;
  link: Link;
}

export interface Header {
  /** Log bytes covered (complete lines only). */
  logBytes: number;
  items: number;
  /** Items that are not compaction records (the session's message_count). */
  messages: number;
  /**
   * Entries that break the one chain: a message whose parent is not the message before it, a second
   * root, a compaction whose through message is unknown. 0: the session is one branch.
   */
  irregular: number;
}

const PARENT = '(,"parent_id":(?:null|"([^"\\\\]{1,200})"))?';
const MESSAGE = new RegExp(`^\\{"t":"message","m":\\{"id":"([^"\\\\]{1,200})","role":"(user|assistant|tool)"${PARENT}`);
const DELTA = new RegExp(`^\\{"t":"delta","id":"([^"\\\\]{1,200})"${PARENT}`);
const OTHER = /^\{"t":"turn_end"/;
/** Lines longer than this are not parsed when their head does not tell what they are. */
const MAX_PARSED_LINE = 64 * 1024 * 1024;

/** An item's first record: its id, role and what it links to (`undefined`: no parent_id, a legacy line). */
export type Classified = { id: string; role: Role; link: string | null | undefined } | null;

/** Reads the line whole when its head does not hold everything (other key orders, hand edits). */
async function parsed(file: string, line: LogLine): Promise<Classified> {
  if (line.length > MAX_PARSED_LINE) return null;
  try {
    const r = JSON.parse((line.full ?? (await readRange(file, line.offset, line.offset + line.length))).toString('utf8'));
    if (r?.t === 'message' && typeof r.m?.id === 'string' && ROLES.includes(r.m.role))
      return { id: r.m.id, role: r.m.role, link: linkOf(r.m.parent_id) };
    if (r?.t === 'delta' && typeof r.id === 'string') return { id: r.id, role: 'assistant', link: linkOf(r.parent_id) };
    if (r?.t === 'compaction' && typeof r.c?.id === 'string')
      return { id: r.c.id, role: 'system', link: typeof r.c.through_message_id === 'string' ? r.c.through_message_id : undefined };
  } catch {
    // not JSON: skipped, as the fold skips it
  }
  return null;
}

function linkOf(value: unknown): string | null | undefined {
  return value === null || typeof value === 'string' ? value : undefined;
}

/** What the indexer looks for in a line whose head has no parent_id (a legacy line has none anywhere). */
export const PARENT_NEEDLE = Buffer.from('"parent_id"');

/** What item a line starts or continues: read from its head; other key orders (hand edits) are parsed. */
export async function classify(file: string, line: LogLine): Promise<Classified> {
  // `}` last: a torn line (crash mid-write, closed off later) is skipped as the fold skips it.
  if (line.lastByte !== 0x7d) return null;
  const head = line.head.toString('utf8');
  const message = MESSAGE.exec(head);
  const delta = message ? null : DELTA.exec(head);
  const found = message
    ? { id: message[1], role: message[2] as Role, whole: message[3], parent: message[4] }
    : delta && { id: delta[1], role: 'assistant' as const, whole: delta[2], parent: delta[3] };
  if (found) {
    if (found.whole !== undefined) return { id: found.id, role: found.role, link: found.parent ?? null };
    // No parent_id right after the id: a legacy line, unless it names one further on.
    if (line.found) return parsed(file, line);
    return { id: found.id, role: found.role, link: undefined };
  }
  if (OTHER.test(head)) return null;
  return parsed(file, line);
}

export function encode(entries: IndexEntry[]): Buffer {
  const out = Buffer.alloc(entries.length * ENTRY);
  entries.forEach((e, i) => {
    const at = i * ENTRY;
    out.writeDoubleLE(e.offset, at);
    out[at + 8] = ROLES.indexOf(e.role);
    const id = Buffer.from(e.id, 'utf8');
    out[at + 9] = id.length;
    out[at + 10] = LINK_KINDS.indexOf(e.link.kind);
    out.writeUInt32LE(e.link.kind === 'at' ? e.link.at : 0, at + 12);
    id.copy(out, at + ID_AT);
  });
  return out;
}

export function decodeLink(buffer: Buffer, at: number): Link {
  const kind = LINK_KINDS[buffer[at + 10]] ?? 'none';
  return kind === 'at' ? { kind, at: buffer.readUInt32LE(at + 12) } : { kind };
}

export function decodeId(buffer: Buffer, at: number): string {
  return buffer.toString('utf8', at + ID_AT, at + ID_AT + buffer[at + 9]);
}

export function decode(buffer: Buffer, count: number): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * ENTRY;
    out.push({
      offset: buffer.readDoubleLE(at),
      role: ROLES[buffer[at + 8]] ?? 'assistant',
      id: decodeId(buffer, at),
      link: decodeLink(buffer, at),
    });
  }
  return out;
}

/**
 * Turns classified lines into entries: drops later records of an item already indexed, resolves
 * parents to positions and counts what breaks the chain. `older` looks an id up among the entries
 * written before this run (for a parent further back than the recent ones).
 */
export class Indexer {
  /** Recent ids → position and whether it is a message. */
  private readonly recent = new Map<string, { at: number; message: boolean }>();
  constructor(
    private header: Header,
    /** The position of the last message so far (-1: none). */
    private lastMessage: number,
    recent: IndexEntry[],
    private readonly older: (id: string) => Promise<{ at: number; message: boolean } | null>,
  ) {
    const first = header.items - recent.length;
    recent.forEach((e, i) => this.recent.set(e.id, { at: first + i, message: e.role !== 'system' }));
  }

  get state(): Header {
    return this.header;
  }

  /** The entry for this line, or null when it continues an item already indexed. */
  async add(line: LogLine, item: NonNullable<Classified>): Promise<IndexEntry | null> {
    if (this.recent.has(item.id)) return null;
    if (Buffer.byteLength(item.id) > ID_MAX) throw new Error(`message id too long for the index: ${item.id.slice(0, 80)}`);
    const position = this.header.items;
    let target: { at: number; message: boolean } | null = null;
    if (typeof item.link === 'string') target = this.recent.get(item.link) ?? (await this.older(item.link));
    let link: Link;
    let regular: boolean;
    if (item.role === 'system') {
      link = target?.message ? { kind: 'at', at: target.at } : { kind: 'none' };
      regular = link.kind === 'at';
    } else if (item.link === null) {
      link = { kind: 'root' };
      regular = this.lastMessage < 0;
    } else if (target?.message) {
      link = { kind: 'at', at: target.at };
      regular = target.at === this.lastMessage;
    } else {
      // No parent_id, or one not earlier in the log: the message before it.
      link = { kind: 'none' };
      regular = true;
    }
    this.recent.set(item.id, { at: position, message: item.role !== 'system' });
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
    if (item.role !== 'system') this.lastMessage = position;
    this.header = {
      ...this.header,
      items: position + 1,
      messages: this.header.messages + (item.role === 'system' ? 0 : 1),
      irregular: this.header.irregular + (regular ? 0 : 1),
    };
    return { offset: line.offset, role: item.role, id: item.id, link };
  }
}

/** Looks an id up in index entries [0, count) of a buffer reader, newest first. */
export async function findIn(read: (from: number, to: number) => Promise<Buffer>, count: number, id: string) {
  const step = 2048;
  for (let end = count; end > 0; end -= step) {
    const start = Math.max(0, end - step);
    const buffer = await read(start, end);
    for (let i = end - start - 1; i >= 0; i--) {
      if (decodeId(buffer, i * ENTRY) === id) return { at: start + i, message: ROLES[buffer[i * ENTRY + 8]] !== 'system' };
    }
  }
  return null;
}
