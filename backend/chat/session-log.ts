import { promises as fs } from 'node:fs';
import type { CompactionRecord, LogRecord, StoredMessage } from './chat-types.js';
import { forEachLine } from './log-lines.js';

export interface TurnEnd {
  stop_reason?: string;
  error?: { code: string; message: string };
}

/** events.jsonl folded into what it describes. */
export interface SessionLog {
  /** Messages and compaction records in the order they were written. */
  items: (StoredMessage | CompactionRecord)[];
  turnEnds: Map<string, TurnEnd>;
  /** Lines that did not parse (a torn last line after a crash). */
  skipped: number;
}

function applyDelta(log: SessionLog, index: Map<string, number>, r: Extract<LogRecord, { t: 'delta' }>): void {
  let at = index.get(r.id);
  if (at === undefined) {
    at = log.items.length;
    index.set(r.id, at);
    log.items.push({
      id: r.id,
      role: 'assistant',
      created_at: new Date().toISOString(),
      blocks: [],
      turn_id: r.turn_id,
      interrupted: true,
      ...(r.parent_id !== undefined ? { parent_id: r.parent_id } : {}),
    });
  }
  const message = log.items[at] as StoredMessage;
  const last = message.blocks[message.blocks.length - 1];
  if (last && last.type === r.kind) last.text += r.text;
  else message.blocks.push({ type: r.kind, text: r.text });
}

function lastOfTurn(log: SessionLog, turnId: string): StoredMessage | undefined {
  for (let i = log.items.length - 1; i >= 0; i--) {
    const item = log.items[i];
    if (item.role !== 'system' && item.turn_id === turnId) return item;
  }
  return undefined;
}

/** Folds the lines of events.jsonl one at a time; a line that does not parse is skipped, never fatal. */
export class LogFolder {
  readonly log: SessionLog = { items: [], turnEnds: new Map(), skipped: 0 };
  private readonly index = new Map<string, number>();

  add(line: string): void {
    const { log, index } = this;
    if (line.trim() === '') return;
    let r: LogRecord;
    try {
      r = JSON.parse(line) as LogRecord;
    } catch {
      log.skipped += 1;
      return;
    }
    switch (r?.t) {
      case 'message': {
        const at = index.get(r.m.id);
        if (at === undefined) {
          index.set(r.m.id, log.items.length);
          log.items.push(r.m);
        } else log.items[at] = r.m;
        break;
      }
      case 'delta':
        applyDelta(log, index, r);
        break;
      case 'compaction':
        index.set(r.c.id, log.items.length);
        log.items.push(r.c);
        break;
      case 'turn_end': {
        log.turnEnds.set(r.turn_id, { stop_reason: r.stop_reason, error: r.error });
        const last = r.error ? lastOfTurn(log, r.turn_id) : undefined;
        if (last && r.error) {
          last.error = r.error;
          // Ended (cancelled, failed): not a crash.
          delete last.interrupted;
        }
        break;
      }
      default:
        log.skipped += 1;
    }
  }
}

/** Folds the lines of events.jsonl; a line that does not parse is skipped, never fatal. */
export function foldLog(text: string): SessionLog {
  const folder = new LogFolder();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    folder.add(text.slice(start, end));
    start = end + 1;
  }
  return folder.log;
}

/** Lines longer than this are skipped when folded (no message is near it: tool results are cut to 100 KB). */
export const MAX_FOLDED_LINE = 64 * 1024 * 1024;

/** Folds the complete lines in [from, to) of a log file, streaming: no log, however large, becomes one string. */
export async function foldRange(file: string, from: number, to: number): Promise<SessionLog> {
  const folder = new LogFolder();
  await forEachLine(
    file,
    from,
    to,
    (line) => {
      if (line.full) folder.add(line.full.toString('utf8'));
      else if (line.length > 0) folder.log.skipped += 1;
    },
    MAX_FOLDED_LINE,
  );
  return folder.log;
}

/** Reads events.jsonl, or only its first `maxBytes` (a snapshot taken at a checkpoint). */
export async function readLog(file: string, maxBytes?: number): Promise<SessionLog> {
  let text: string;
  try {
    if (maxBytes === undefined) text = await fs.readFile(file, 'utf8');
    else {
      const handle = await fs.open(file, 'r');
      try {
        const buffer = Buffer.alloc(maxBytes);
        const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
        text = buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { items: [], turnEnds: new Map(), skipped: 0 };
    throw err;
  }
  return foldLog(text);
}

/**
 * One line of events.jsonl. `parent_id` goes right after the id (and role), where the offset index
 * reads it from the line's head without parsing the rest.
 */
export function recordLine(r: LogRecord): string {
  if (r.t === 'message' && r.m.parent_id !== undefined) {
    const { id, role, parent_id, ...rest } = r.m;
    return `${JSON.stringify({ t: r.t, m: { id, role, parent_id, ...rest } })}\n`;
  }
  if (r.t === 'delta' && r.parent_id !== undefined) {
    const { t, id, parent_id, ...rest } = r;
    return `${JSON.stringify({ t, id, parent_id, ...rest })}\n`;
  }
  return `${JSON.stringify(r)}\n`;
}

/** Append-only writer of events.jsonl: records of one tick go out in one write, fsync on demand. */
export class LogAppender {
  private pending: LogRecord[] = [];
  private chain: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failed: Error | null = null;
  /** Called once, at the first write that fails (the disk is full): the turn stops there. */
  onFailure: ((err: Error) => void) | null = null;
  /** Bytes in the file after the last completed write. */
  private size: number;

  private constructor(
    private readonly handle: fs.FileHandle,
    size: number,
  ) {
    this.size = size;
  }

  /** Opens for appending; a torn last line (crash mid-write) is closed off so the next record starts clean. */
  static async open(file: string): Promise<LogAppender> {
    const handle = await fs.open(file, 'a+', 0o600);
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        await handle.write('\n');
        return new LogAppender(handle, size + 1);
      }
    }
    return new LogAppender(handle, size);
  }

  append(record: LogRecord): void {
    const last = this.pending[this.pending.length - 1];
    // Deltas of one block that arrive together become one line.
    if (record.t === 'delta' && last?.t === 'delta' && last.id === record.id && last.kind === record.kind) {
      this.pending[this.pending.length - 1] = { ...last, text: last.text + record.text };
    } else this.pending.push(record);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Writes what is pending (the OS has it: it survives the process being killed). */
  flush(): Promise<void> {
    return this.checkpoint().then(() => undefined);
  }

  /**
   * Writes what was appended so far; resolves with the file length right after exactly those
   * records, so a reader can take a snapshot that matches the frames sent until now.
   */
  checkpoint(): Promise<number> {
    this.scheduled = false;
    const data = this.pending.map(recordLine).join('');
    this.pending = [];
    const done = this.chain.then(async () => {
      if (data && !this.failed) {
        try {
          const buffer = Buffer.from(data, 'utf8');
          await this.handle.write(buffer);
          this.size += buffer.length;
        } catch (err) {
          this.failed = err as Error;
          this.onFailure?.(this.failed);
        }
      }
      return this.size;
    });
    this.chain = done.then(() => undefined);
    return done;
  }

  /** The first write error, if any. */
  get failure(): Error | null {
    return this.failed;
  }

  /** Flushes and fsyncs (end of a turn); rejects when any write failed. */
  async sync(): Promise<void> {
    await this.flush();
    if (this.failed) throw this.failed;
    await this.handle.sync();
  }

  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.handle.close().catch(() => undefined);
  }
}
