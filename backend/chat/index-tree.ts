import { decodeId, decodeLink, ENTRY, ROLES, type IndexEntry, type LogIndex, type Role } from './log-index.js';

/** Positions (in the offset index) of the items on one branch, ascending. */
export interface Positions {
  readonly length: number;
  at(i: number): number;
  /** Where `position` is on the branch, -1 when it is not. */
  indexOf(position: number): number;
}

function range(length: number): Positions {
  return { length, at: (i) => i, indexOf: (p) => (p >= 0 && p < length ? p : -1) };
}

function list(items: number[]): Positions {
  const indexOf = (p: number) => {
    let lo = 0;
    let hi = items.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (items[mid] === p) return mid;
      if (items[mid] < p) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  return { length: items.length, at: (i) => items[i], indexOf };
}

/** Every entry's role and resolved link, read from the index in one go (a session with branches). */
interface Arrays {
  raw: Buffer;
  roles: Uint8Array;
  /** A message's parent position (-1: a root); a compaction's through message (-1: none). */
  parent: Int32Array;
  /** 1-based place among the children of the same parent, oldest first. */
  place: Int32Array;
  /** Children per parent; slot `count` holds the roots. */
  children: Int32Array;
  /** The newest child per parent (-1: a leaf); slot `count` holds the newest root. */
  newest: Int32Array;
  lastMessage: number;
}

const SYSTEM = ROLES.indexOf('system');

function load(raw: Buffer, count: number): Arrays {
  const a: Arrays = {
    raw,
    roles: new Uint8Array(count),
    parent: new Int32Array(count),
    place: new Int32Array(count),
    children: new Int32Array(count + 1),
    newest: new Int32Array(count + 1).fill(-1),
    lastMessage: -1,
  };
  for (let i = 0; i < count; i++) {
    const at = i * ENTRY;
    const role = raw[at + 8];
    a.roles[i] = role;
    const link = decodeLink(raw, at);
    if (role === SYSTEM) {
      a.parent[i] = link.kind === 'at' ? link.at : -1;
      continue;
    }
    // The same rule as session-tree.ts: no parent_id (or an unknown one) follows the message before.
    const parent = link.kind === 'at' ? link.at : link.kind === 'root' ? -1 : a.lastMessage;
    a.parent[i] = parent;
    const slot = parent < 0 ? count : parent;
    a.children[slot] += 1;
    a.place[i] = a.children[slot];
    a.newest[slot] = i;
    a.lastMessage = i;
  }
  return a;
}

/**
 * The branch tree of a session read from its offset index alone (DESIGN 7 and 10): a session that
 * is one chain (the index counts nothing irregular) is answered from a few entries near the end; one
 * with branches reads the entries once (64 bytes per item, no log bytes).
 */
export class IndexTree {
  private arrays: Arrays | null = null;
  /** Entries read ahead for a page or a history (a session that is one chain). */
  private window: { start: number; entries: IndexEntry[] } = { start: 0, entries: [] };

  constructor(readonly index: LogIndex) {}

  get chain(): boolean {
    return this.index.irregular === 0;
  }

  private async full(): Promise<Arrays> {
    this.arrays ??= load(await this.index.raw(0, this.index.count), this.index.count);
    return this.arrays;
  }

  /** Reads entries [from, to) ahead, so that what follows asks the file nothing more. */
  async preload(from: number, to: number): Promise<void> {
    if (this.arrays) return;
    const start = Math.max(0, from);
    this.window = { start, entries: await this.index.entries(start, to) };
  }

  private async entry(position: number): Promise<IndexEntry | undefined> {
    const { start, entries } = this.window;
    if (position >= start && position < start + entries.length) return entries[position - start];
    return (await this.index.entries(position, position + 1))[0];
  }

  /** The nearest position at or before `from` whose role passes `test` (-1: none). */
  private async scanBack(from: number, test: (role: Role) => boolean): Promise<number> {
    const { start: wStart, entries: wEntries } = this.window;
    let at = from;
    for (; at >= wStart && at - wStart < wEntries.length; at--) if (test(wEntries[at - wStart].role)) return at;
    const step = 256;
    for (let end = at + 1; end > 0; end -= step) {
      const start = Math.max(0, end - step);
      const entries = await this.index.entries(start, end);
      for (let i = entries.length - 1; i >= 0; i--) if (test(entries[i].role)) return start + i;
    }
    return -1;
  }

  async role(position: number): Promise<Role> {
    if (this.arrays) return ROLES[this.arrays.roles[position]];
    return (await this.entry(position))?.role ?? 'system';
  }

  async id(position: number): Promise<string> {
    if (this.arrays) return decodeId(this.arrays.raw, position * ENTRY);
    return (await this.entry(position))?.id ?? '';
  }

  /** Byte offset in the log where the item at `position` begins (the covered end past the last). */
  async offset(position: number): Promise<number> {
    if (!this.arrays || position >= this.index.count) return this.index.offsetOf(position);
    return this.arrays.raw.readDoubleLE(position * ENTRY);
  }

  /** The position of the message with this id, -1 when the session has none. */
  async message(id: string): Promise<number> {
    if (this.arrays) {
      const { raw, roles } = this.arrays;
      for (let i = roles.length - 1; i >= 0; i--) if (roles[i] !== SYSTEM && decodeId(raw, i * ENTRY) === id) return i;
      return -1;
    }
    const at = await this.index.find(id);
    return at >= 0 && (await this.role(at)) !== 'system' ? at : -1;
  }

  /** The newest message's position (-1: no message). */
  async lastMessage(): Promise<number> {
    if (this.arrays) return this.arrays.lastMessage;
    return this.scanBack(this.index.count - 1, (r) => r !== 'system');
  }

  /** The leaf of the branch shown: `active` continued to its newest leaf, else the newest message's branch. */
  async leaf(active: string | null | undefined): Promise<number> {
    if (this.chain) return this.lastMessage();
    const a = await this.full();
    let at = active ? await this.message(active) : -1;
    if (at < 0) return a.lastMessage;
    while (a.newest[at] >= 0) at = a.newest[at];
    return at;
  }

  /** The parent message's position (-1: a root). */
  async parent(position: number): Promise<number> {
    if (this.chain && !this.arrays) return position === 0 ? -1 : this.scanBack(position - 1, (r) => r !== 'system');
    return (await this.full()).parent[position];
  }

  async siblings(position: number): Promise<{ index: number; count: number }> {
    if (this.chain && !this.arrays) return { index: 1, count: 1 };
    const a = await this.full();
    const parent = a.parent[position];
    return { index: a.place[position], count: a.children[parent < 0 ? this.index.count : parent] };
  }

  /** The messages with the same parent as `position` (itself included), oldest first. */
  async siblingPositions(position: number): Promise<number[]> {
    if (this.chain && !this.arrays) return [position];
    const a = await this.full();
    const parent = a.parent[position];
    const out: number[] = [];
    for (let i = 0; i < this.index.count; i++) if (a.roles[i] !== SYSTEM && a.parent[i] === parent) out.push(i);
    return out;
  }

  /** The user message a message answers (itself for a user message), -1 when none. */
  async userOf(position: number): Promise<number> {
    if (this.chain && !this.arrays) return this.scanBack(position, (r) => r === 'user');
    const a = await this.full();
    let at = position;
    while (at >= 0 && ROLES[a.roles[at]] !== 'user') at = a.parent[at];
    return at;
  }

  /**
   * The items of the branch that ends at `leaf`: the messages on its path and the compaction records
   * whose through message is on it, in log order (as `branchItems` in session-tree.ts).
   */
  async branch(leaf: number): Promise<Positions> {
    if (leaf < 0) return range(0);
    if (this.chain && leaf === (await this.lastMessage())) return range(this.index.count);
    const a = await this.full();
    const on = new Uint8Array(this.index.count);
    for (let at = leaf; at >= 0; at = a.parent[at]) on[at] = 1;
    const items: number[] = [];
    for (let i = 0; i < this.index.count; i++) {
      if (a.roles[i] === SYSTEM ? a.parent[i] >= 0 && on[a.parent[i]] : on[i]) items.push(i);
    }
    return list(items);
  }
}
