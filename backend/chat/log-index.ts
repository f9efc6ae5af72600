import { promises as fs } from 'node:fs';
import { SerialQueue } from '../data/serial-queue.js';
import { forEachLine, readRange } from './log-lines.js';
import { classify, decode, encode, ENTRY, findIn, Indexer, PARENT_NEEDLE, type Header, type IndexEntry } from './log-index-entries.js';

export { decodeId, decodeLink, ENTRY, ROLES, type IndexEntry, type Link, type Role } from './log-index-entries.js';

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
/** Records of one item are written close together: a new record's id is looked up among the last entries only. */
const LOOKBACK = 512;

function headerBytes(h: Header): Buffer {
  const out = Buffer.alloc(HEADER);
  out.write(MAGIC, 0, 'latin1');
  out.writeDoubleLE(h.logBytes, 8);
  out.writeUInt32LE(h.items, 16);
  out.writeUInt32LE(h.messages, 20);
  out.writeUInt32LE(h.irregular, 24);
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
      0,
      PARENT_NEEDLE,
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
      for (let i = tail.length - 1; i >= 0 && lastMessage < 0; i--)
        if (tail[i].role !== 'system') lastMessage = header.items - lookback + i;
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
        0,
        PARENT_NEEDLE,
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
    return this.memory
      ? this.memory.subarray(start * ENTRY, end * ENTRY)
      : readRange(this.file, HEADER + start * ENTRY, HEADER + end * ENTRY);
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
