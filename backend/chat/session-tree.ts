import type { CompactionRecord, StoredMessage } from './chat-types.js';

type Item = StoredMessage | CompactionRecord;

/**
 * A session's messages as a tree (DESIGN 7, Branches). Every message names its `parent_id`; a
 * message written before branches existed has none and follows the message before it in the log,
 * so an old log reads as one chain without being rewritten.
 */
export interface SessionTree {
  /** Messages and compaction records in log order. */
  items: Item[];
  byId: Map<string, StoredMessage>;
  /** Children of each message (`null`: the roots), oldest first. */
  children: Map<string | null, StoredMessage[]>;
  /** Log position of each message: the order siblings are numbered in. */
  order: Map<string, number>;
}

export function buildTree(items: Item[]): SessionTree {
  const tree: SessionTree = { items, byId: new Map(), children: new Map(), order: new Map() };
  let previous: string | null = null;
  items.forEach((item, i) => {
    if (item.role === 'system') return;
    let parent = item.parent_id;
    // Legacy (or a parent that is not in this log): the message before it.
    if (parent === undefined || (parent !== null && !tree.byId.has(parent))) parent = previous;
    item.parent_id = parent;
    tree.byId.set(item.id, item);
    tree.order.set(item.id, i);
    const list = tree.children.get(parent);
    if (list) list.push(item);
    else tree.children.set(parent, [item]);
    previous = item.id;
  });
  return tree;
}

/** The messages from the root down to `id`, root first. */
export function pathTo(tree: SessionTree, id: string): StoredMessage[] {
  const path: StoredMessage[] = [];
  let at = tree.byId.get(id);
  while (at) {
    path.push(at);
    at = at.parent_id ? tree.byId.get(at.parent_id) : undefined;
  }
  return path.reverse();
}

/** Follows the newest child from `id` down to a leaf. */
export function newestLeaf(tree: SessionTree, id: string): string {
  let at = id;
  for (;;) {
    const kids = tree.children.get(at);
    if (!kids || kids.length === 0) return at;
    at = kids[kids.length - 1].id;
  }
}

/**
 * The leaf of the branch shown: `active_leaf` continued to its newest leaf; without one (an old
 * session, or a leaf that is gone) the newest message's branch.
 */
export function activeLeaf(tree: SessionTree, active: string | null | undefined): string | null {
  if (active && tree.byId.has(active)) return newestLeaf(tree, active);
  let last: string | null = null;
  for (const item of tree.items) if (item.role !== 'system') last = item.id;
  return last;
}

/** The branch ending at `leaf` as the turn and the page see it: its messages and the compaction records that apply to it. */
export function branchItems(tree: SessionTree, leaf: string | null): Item[] {
  if (leaf === null) return [];
  const on = new Set(pathTo(tree, leaf).map((m) => m.id));
  return tree.items.filter((i) => (i.role === 'system' ? on.has(i.through_message_id) : on.has(i.id)));
}

/** The messages that share `id`'s parent (itself included), oldest first. */
export function siblingsOf(tree: SessionTree, id: string): StoredMessage[] {
  const m = tree.byId.get(id);
  if (!m) return [];
  return tree.children.get(m.parent_id ?? null) ?? [m];
}

/** 1-based position among the siblings, oldest first. */
export function siblingInfo(tree: SessionTree, id: string): { index: number; count: number } {
  const list = siblingsOf(tree, id);
  return { index: list.findIndex((s) => s.id === id) + 1, count: list.length };
}

/** The user message a reply (or a tool message within its turn) answers; a user message answers itself. */
export function userMessageOf(tree: SessionTree, id: string): StoredMessage | undefined {
  let at = tree.byId.get(id);
  while (at && at.role !== 'user') at = at.parent_id ? tree.byId.get(at.parent_id) : undefined;
  return at;
}

/** How many distinct branches (leaves) the tree holds. */
export function leafCount(tree: SessionTree): number {
  let n = 0;
  for (const id of tree.byId.keys()) if (!tree.children.get(id)?.length) n += 1;
  return n;
}
