import { promises as fs } from 'node:fs';
import { SerialQueue } from '../data/serial-queue.js';
import { forEachLine, readRange, type LogLine } from './log-lines.js';

/**
 * `events.idx`, the sidecar offset index of `events.jsonl`: one fixed-size entry per message or
 * compaction record, in log order, holding the byte offset of the item's first record, its role, its
 * id and its link: a message's parent (DESIGN 7) or a compaction's through message, as a position.
 * Pages, paging back and a turn's history read only the entries and log bytes they return; the
 * branch tree is built from the entries alone. Version 01 files (no links) are rebuilt.
 * The log stays the only truth: the index is extended with what was appended since, and rebuilt
 * (streaming) when missing, damaged or not matching the log. Losing it loses nothing.
 */
const MAGIC = 'SVCIDX02';
const HEADER = 32;
export const ENTRY = 64;
const ID_AT = 16;
const ID_MAX = ENTRY - ID_AT;
/** Ids kept for dedup and parent lookups while indexing; an older parent is looked up in the file. */
const RECENT = 8192;
/** Records of one item are written close together: a new record's id is looked up among the last entries only. */
const LOOKBACK = 512;
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

interface Header {
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
/** Lines up to this size are kept whole while indexing (a legacy line is searched for a parent_id). */
const FULL_LINE = 64 * 1024;

/** An item's first record: its id, role and what it links to (`undefined`: no parent_id, a legacy line). */
type Classified = { id: string; role: Role; link: string | null | undefined } | null;

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

/** Whether the line names a parent_id beyond its head (a message written in another key order). */
async function mentionsParent(file: string, line: LogLine): Promise<boolean> {
  const body = line.full ?? (line.length > MAX_PARSED_LINE ? null : await readRange(file, line.offset, line.offset + line.length));
  return body !== null && body.includes('"parent_id"');
}

/** What item a line starts or continues: read from its head; other key orders (hand edits) are parsed. */
async function classify(file: string, line: LogLine): Promise<Classified> {
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
    if (await mentionsParent(file, line)) return parsed(file, line);
    return { id: found.id, role: found.role, link: undefined };
  }
  if (OTHER.test(head)) return null;
  return parsed(file, line);
}

function encode(entries: IndexEntry[]): Buffer {
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

function decode(buffer: Buffer, count: number): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * ENTRY;
    out.push({ offset: buffer.readDoubleLE(at), role: ROLES[buffer[at + 8]] ?? 'assistant', id: decodeId(buffer, at), link: decodeLink(buffer, at) });
  }
  return out;
}

function headerBytes(h: Header): Buffer {
  const out = Buffer.alloc(HEADER);
  out.write(MAGIC, 0, 'latin1');
  out.writeDoubleLE(h.logBytes, 8);
  out.writeUInt32LE(h.items, 16);
  out.writeUInt32LE(h.messages, 20);
  out.writeUInt32LE(h.irregular, 24);
  return out;
}

/**
 * Turns classified lines into entries: drops later records of an item already indexed, resolves
 * parents to positions and counts what breaks the chain. `older` looks an id up among the entries
 * written before this run (for a parent further back than the recent ones).
 */
class Indexer {
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
async function findIn(read: (from: number, to: number) => Promise<Buffer>, count: number, id: string) {
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

const queue = new SerialQueue();
const UNWRITABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO']);

/** An index brought up to date with its log; reads go to the file (nothing of the log is held). */
export class LogIndex {
  private constructor(
    readonly logFile: string,
    readonly file: string,
    private readonly header: Header,
    /** The log had records this index had not seen (appended, or the index was rebuilt). */
    readonly grew: boolean,
    /** Entries held in memory when the index file cannot be written (a full disk). */
    private readonly memory: Buffer | null = null,
  ) {}

  /** Log bytes covered: the end of the last complete line. */
  get logBytes(): number {
    return this.header.logBytes;
  }

  get count(): number {
    return this.header.items;
  }

  get messageCount(): number {
    return this.header.messages;
  }

  /** Opens the index of `logFile`, extending or rebuilding it so that it covers the whole log. */
  static open(logFile: string, indexFile = logFile.replace(/\.jsonl$/, '.idx')): Promise<LogIndex> {
    return queue.run(indexFile, async () => {
      try {
        return await LogIndex.sync(logFile, indexFile);
      } catch (err) {
        // The index cannot be written (disk full, read-only): reads keep working from memory.
        if (!UNWRITABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
        return LogIndex.inMemory(logFile, indexFile);
      }
    });
  }

  get irregular(): number {
    return this.header.irregular;
  }

  /** The whole index built in memory from the log, nothing written. */
  private static async inMemory(logFile: string, indexFile: string): Promise<LogIndex> {
    const entries: IndexEntry[] = [];
    const size = await fs.stat(logFile).then(
      (st) => st.size,
      () => 0,
    );
    const indexer = new Indexer({ logBytes: 0, items: 0, messages: 0, irregular: 0 }, -1, [], async (id) => {
      const at = entries.findIndex((e) => e.id === id);
      return at < 0 ? null : { at, message: entries[at].role !== 'system' };
    });
    const end = await forEachLine(
      logFile,
      0,
      size,
      async (line) => {
        const item = await classify(logFile, line);
        const entry = item && (await indexer.add(line, item));
        if (entry) entries.push(entry);
      },
      FULL_LINE,
    );
    return new LogIndex(logFile, indexFile, { ...indexer.state, logBytes: end }, true, encode(entries));
  }

  private static async sync(logFile: string, indexFile: string): Promise<LogIndex> {
    const size = await fs.stat(logFile).then(
      (st) => st.size,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return 0;
        throw err;
      },
    );
    let header = await LogIndex.readHeader(logFile, indexFile, size);
    if (!header) {
      header = { logBytes: 0, items: 0, messages: 0, irregular: 0 };
      await fs.writeFile(indexFile, headerBytes(header), { mode: 0o600 });
    }
    const grew = header.logBytes < size;
    if (grew) header = await LogIndex.extend(logFile, indexFile, header, size);
    return new LogIndex(logFile, indexFile, header, grew);
  }

  /** The header when the file is whole and matches the log, else null (rebuild). Reads 32 + 64 bytes. */
  private static async readHeader(logFile: string, indexFile: string, logSize: number): Promise<Header | null> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(indexFile, 'r');
    } catch {
      return null;
    }
    let header: Header;
    let last: IndexEntry | undefined;
    try {
      const { size } = await handle.stat();
      const head = Buffer.alloc(HEADER);
      await handle.read(head, 0, HEADER, 0);
      // An older version (no links) or a foreign file: rebuilt.
      if (size < HEADER || head.toString('latin1', 0, 8) !== MAGIC) return null;
      header = {
        logBytes: head.readDoubleLE(8),
        items: head.readUInt32LE(16),
        messages: head.readUInt32LE(20),
        irregular: head.readUInt32LE(24),
      };
      if (size !== HEADER + header.items * ENTRY || header.logBytes > logSize) return null;
      if (header.items === 0) return header.logBytes === 0 ? header : null;
      const entry = Buffer.alloc(ENTRY);
      await handle.read(entry, 0, ENTRY, HEADER + (header.items - 1) * ENTRY);
      last = decode(entry, 1)[0];
    } finally {
      await handle.close();
    }
    // The last entry must still point at a record of that id (a log replaced by hand would not).
    if (last.offset >= header.logBytes) return null;
    const at = (await readRange(logFile, last.offset, Math.min(last.offset + 400, header.logBytes))).toString('utf8');
    return at.includes(`"id":"${last.id}"`) || at.includes(`"id": "${last.id}"`) ? header : null;
  }

  /** Adds the items of the lines in [header.logBytes, size). */
  private static async extend(logFile: string, indexFile: string, header: Header, size: number): Promise<Header> {
    const handle = await fs.open(indexFile, 'r+');
    try {
      const read = async (from: number, to: number) => {
        const buffer = Buffer.alloc((to - from) * ENTRY);
        await handle.read(buffer, 0, buffer.length, HEADER + from * ENTRY);
        return buffer;
      };
      const lookback = Math.min(header.items, LOOKBACK);
      const tail = decode(await read(header.items - lookback, header.items), lookback);
      let lastMessage = -1;
      for (let i = tail.length - 1; i >= 0 && lastMessage < 0; i--) if (tail[i].role !== 'system') lastMessage = header.items - lookback + i;
      const added: IndexEntry[] = [];
      let written = header.items;
      const indexer = new Indexer(header, lastMessage, tail, (id) => findIn(read, written, id));
      const flush = async () => {
        if (added.length === 0) return;
        await handle.write(encode(added), 0, added.length * ENTRY, HEADER + written * ENTRY);
        written += added.length;
        added.length = 0;
      };
      const end = await forEachLine(
        logFile,
        header.logBytes,
        size,
        async (line) => {
          const item = await classify(logFile, line);
          const entry = item && (await indexer.add(line, item));
          if (!entry) return;
          added.push(entry);
          if (added.length >= 4096) await flush();
        },
        FULL_LINE,
      );
      await flush();
      const next = { ...indexer.state, logBytes: end };
      await handle.truncate(HEADER + written * ENTRY);
      await handle.write(headerBytes(next), 0, HEADER, 0);
      return next;
    } finally {
      await handle.close();
    }
  }

  /** The raw entries [from, to) (64 bytes each), for callers that read only some fields. */
  async raw(from: number, to: number): Promise<Buffer> {
    const start = Math.max(0, from);
    const end = Math.min(this.header.items, to);
    if (end <= start) return Buffer.alloc(0);
    return this.memory ? this.memory.subarray(start * ENTRY, end * ENTRY) : readRange(this.file, HEADER + start * ENTRY, HEADER + end * ENTRY);
  }

  /** Entries [from, to). */
  async entries(from: number, to: number): Promise<IndexEntry[]> {
    const start = Math.max(0, from);
    const end = Math.min(this.header.items, to);
    if (end <= start) return [];
    return decode(await this.raw(start, end), end - start);
  }

  /** Position of the item with this id, searched from the newest back (paging back stays near the end). */
  async find(id: string, below = this.header.items): Promise<number> {
    const step = 2048;
    for (let end = below; end > 0; end -= step) {
      const start = Math.max(0, end - step);
      const entries = await this.entries(start, end);
      for (let i = entries.length - 1; i >= 0; i--) if (entries[i].id === id) return start + i;
    }
    return -1;
  }

  /** Entries whose first record starts before `bytes` (a snapshot of the log taken at a checkpoint). */
  async countBefore(bytes: number): Promise<number> {
    if (bytes >= this.header.logBytes) return this.header.items;
    let lo = 0;
    let hi = this.header.items;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((await this.entries(mid, mid + 1))[0].offset < bytes) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Byte offset where item `position` begins (the covered end for the position after the last). */
  async offsetOf(position: number): Promise<number> {
    if (position >= this.header.items) return this.header.logBytes;
    return (await this.entries(position, position + 1))[0].offset;
  }
}
