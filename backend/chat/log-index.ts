import { promises as fs } from 'node:fs';
import { SerialQueue } from '../data/serial-queue.js';
import { forEachLine, readRange, type LogLine } from './log-lines.js';

/**
 * `events.idx`, the sidecar offset index of `events.jsonl`: one fixed-size entry per message or
 * compaction record, in log order, holding the byte offset of the item's first record, its role and
 * its id. Pages, paging back and a turn's history read only the entries and log bytes they return.
 * The log stays the only truth: the index is extended with what was appended since, and rebuilt
 * (streaming) when missing, damaged or not matching the log. Losing it loses nothing.
 */
const MAGIC = 'SVCIDX01';
const HEADER = 32;
export const ENTRY = 48;
const ID_MAX = ENTRY - 10;
/** Records of one item are written close together: a new record's id is looked up among the last entries only. */
const LOOKBACK = 512;
export const ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type Role = (typeof ROLES)[number];

export interface IndexEntry {
  offset: number;
  role: Role;
  id: string;
}

interface Header {
  /** Log bytes covered (complete lines only). */
  logBytes: number;
  items: number;
  /** Items that are not compaction records (the session's message_count). */
  messages: number;
}

const MESSAGE = /^\{"t":"message","m":\{"id":"([^"\\]{1,200})","role":"(user|assistant|tool)"/;
const DELTA = /^\{"t":"delta","id":"([^"\\]{1,200})"/;
const COMPACTION = /^\{"t":"compaction","c":\{"id":"([^"\\]{1,200})"/;
const OTHER = /^\{"t":"turn_end"/;
/** Lines longer than this are not parsed when their head does not tell what they are. */
const MAX_PARSED_LINE = 64 * 1024 * 1024;

type Classified = { id: string; role: Role } | null;

/** What item a line starts or continues: read from its head; other key orders (hand edits) are parsed. */
async function classify(file: string, line: LogLine): Promise<Classified> {
  // `}` last: a torn line (crash mid-write, closed off later) is skipped as the fold skips it.
  if (line.lastByte !== 0x7d) return null;
  const head = line.head.toString('latin1');
  let m = MESSAGE.exec(head);
  if (m) return { id: m[1], role: m[2] as Role };
  m = DELTA.exec(head);
  if (m) return { id: m[1], role: 'assistant' };
  m = COMPACTION.exec(head);
  if (m) return { id: m[1], role: 'system' };
  if (OTHER.test(head) || line.length > MAX_PARSED_LINE) return null;
  try {
    const r = JSON.parse((line.full ?? (await readRange(file, line.offset, line.offset + line.length))).toString('utf8'));
    if (r?.t === 'message' && typeof r.m?.id === 'string' && ROLES.includes(r.m.role)) return { id: r.m.id, role: r.m.role };
    if (r?.t === 'delta' && typeof r.id === 'string') return { id: r.id, role: 'assistant' };
    if (r?.t === 'compaction' && typeof r.c?.id === 'string') return { id: r.c.id, role: 'system' };
  } catch {
    // not JSON: skipped, as the fold skips it
  }
  return null;
}

function encode(entries: IndexEntry[]): Buffer {
  const out = Buffer.alloc(entries.length * ENTRY);
  entries.forEach((e, i) => {
    const at = i * ENTRY;
    out.writeDoubleLE(e.offset, at);
    out[at + 8] = ROLES.indexOf(e.role);
    const id = Buffer.from(e.id, 'utf8');
    out[at + 9] = id.length;
    id.copy(out, at + 10);
  });
  return out;
}

function decode(buffer: Buffer, count: number): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * ENTRY;
    out.push({
      offset: buffer.readDoubleLE(at),
      role: ROLES[buffer[at + 8]] ?? 'assistant',
      id: buffer.toString('utf8', at + 10, at + 10 + buffer[at + 9]),
    });
  }
  return out;
}

function headerBytes(h: Header): Buffer {
  const out = Buffer.alloc(HEADER);
  out.write(MAGIC, 0, 'latin1');
  out.writeDoubleLE(h.logBytes, 8);
  out.writeUInt32LE(h.items, 16);
  out.writeUInt32LE(h.messages, 20);
  return out;
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

  /** The whole index built in memory from the log, nothing written. */
  private static async inMemory(logFile: string, indexFile: string): Promise<LogIndex> {
    const entries: IndexEntry[] = [];
    const seen = new Set<string>();
    let messages = 0;
    const size = await fs.stat(logFile).then(
      (st) => st.size,
      () => 0,
    );
    const end = await forEachLine(logFile, 0, size, async (line) => {
      const item = await classify(logFile, line);
      if (!item || seen.has(item.id)) return;
      seen.add(item.id);
      entries.push({ offset: line.offset, role: item.role, id: item.id });
      if (item.role !== 'system') messages += 1;
    });
    return new LogIndex(logFile, indexFile, { logBytes: end, items: entries.length, messages }, true, encode(entries));
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
      header = { logBytes: 0, items: 0, messages: 0 };
      await fs.writeFile(indexFile, headerBytes(header), { mode: 0o600 });
    }
    const grew = header.logBytes < size;
    if (grew) header = await LogIndex.extend(logFile, indexFile, header, size);
    return new LogIndex(logFile, indexFile, header, grew);
  }

  /** The header when the file is whole and matches the log, else null (rebuild). Reads 32 + 48 bytes. */
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
      if (size < HEADER || head.toString('latin1', 0, 8) !== MAGIC) return null;
      header = { logBytes: head.readDoubleLE(8), items: head.readUInt32LE(16), messages: head.readUInt32LE(20) };
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
      const lookback = Math.min(header.items, LOOKBACK);
      const tail = Buffer.alloc(lookback * ENTRY);
      await handle.read(tail, 0, tail.length, HEADER + (header.items - lookback) * ENTRY);
      const recent = new Set(decode(tail, lookback).map((e) => e.id));
      const added: IndexEntry[] = [];
      let messages = header.messages;
      let written = header.items;
      const flush = async () => {
        if (added.length === 0) return;
        await handle.write(encode(added), 0, added.length * ENTRY, HEADER + written * ENTRY);
        written += added.length;
        added.length = 0;
      };
      const end = await forEachLine(logFile, header.logBytes, size, async (line) => {
        const item = await classify(logFile, line);
        if (!item || recent.has(item.id)) return;
        if (Buffer.byteLength(item.id) > ID_MAX) throw new Error(`message id too long for the index: ${item.id.slice(0, 80)}`);
        recent.add(item.id);
        if (recent.size > LOOKBACK * 2) recent.delete(recent.values().next().value as string);
        added.push({ offset: line.offset, role: item.role, id: item.id });
        if (item.role !== 'system') messages += 1;
        if (added.length >= 4096) await flush();
      });
      await flush();
      const next = { logBytes: end, items: written, messages };
      await handle.truncate(HEADER + written * ENTRY);
      await handle.write(headerBytes(next), 0, HEADER, 0);
      return next;
    } finally {
      await handle.close();
    }
  }

  /** Entries [from, to). */
  async entries(from: number, to: number): Promise<IndexEntry[]> {
    const start = Math.max(0, from);
    const end = Math.min(this.header.items, to);
    if (end <= start) return [];
    const buffer = this.memory
      ? this.memory.subarray(start * ENTRY, end * ENTRY)
      : await readRange(this.file, HEADER + start * ENTRY, HEADER + end * ENTRY);
    return decode(buffer, end - start);
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
