import { ApiError } from '../http/errors.js';
import { publicMessage, type MessageView } from './chat-types.js';
import { IndexTree, type Positions } from './index-tree.js';
import type { LogIndex } from './log-index.js';
import { foldRange, type SessionLog } from './session-log.js';

type Items = SessionLog['items'];

export interface MessagePage {
  messages: MessageView[];
  has_more: boolean;
}

/**
 * The items at these index positions (ascending), folded from their log bytes only: each run of
 * consecutive positions is one read. `maxBytes` cuts at a snapshot of a running turn.
 */
export async function readPositions(index: LogIndex, positions: number[], maxBytes?: number): Promise<Items> {
  const out: Items = [];
  for (let i = 0; i < positions.length;) {
    let j = i + 1;
    while (j < positions.length && positions[j] === positions[j - 1] + 1) j += 1;
    const first = positions[i];
    const last = positions[j - 1];
    const from = await index.offsetOf(first);
    let to = await index.offsetOf(last + 1);
    if (maxBytes !== undefined) to = Math.min(to, maxBytes);
    if (to > from) {
      const wanted = new Set((await index.entries(first, last + 1)).map((e) => e.id));
      // A record of an item from before the run (its final message line) is not part of it.
      for (const item of (await foldRange(index.logFile, from, to)).items) if (wanted.has(item.id)) out.push(item);
    }
    i = j;
  }
  return out;
}

function slice(branch: Positions, start: number, end: number): number[] {
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(branch.at(i));
  return out;
}

/** How many positions of the branch lie before `count` (the branch is ascending). */
function countBelow(branch: Positions, count: number): number {
  let lo = 0;
  let hi = branch.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (branch.at(mid) < count) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A message's `parent_id` and its place among its siblings. */
async function placeOf(tree: IndexTree, at: number) {
  const parent = await tree.parent(at);
  return { parent_id: parent < 0 ? null : await tree.id(parent), siblings: await tree.siblings(at) };
}

/** The messages that share `id`'s parent (itself included), oldest first; null when there is no such message. */
export async function siblingMessages(index: LogIndex, id: string): Promise<MessageView[] | null> {
  const tree = new IndexTree(index);
  const at = await tree.message(id);
  if (at < 0) return null;
  const positions = await tree.siblingPositions(at);
  const ids = new Map(await Promise.all(positions.map(async (p) => [await tree.id(p), p] as const)));
  const items = await readPositions(index, positions);
  return Promise.all(
    items.map(async (item) => ({ ...publicMessage(item), ...(await placeOf(tree, ids.get(item.id) ?? at)) }) as MessageView),
  );
}

/**
 * A page of the branch shown (DESIGN 7 and 10): `active` continued to its newest leaf, the newest
 * `limit` items before `before`, each message with its `parent_id` and its place among its siblings.
 * Reads the index (its entries once when the session has branches) and the page's log bytes only.
 */
export async function branchPage(
  index: LogIndex,
  active: string | null | undefined,
  before: string | undefined,
  limit: number,
  maxBytes?: number,
): Promise<MessagePage & { message_count: number; log_grew: boolean }> {
  const count = maxBytes === undefined ? index.count : await index.countBefore(maxBytes);
  const tree = new IndexTree(index);
  const branch = await tree.branch(await tree.leaf(active));
  let end = countBelow(branch, count);
  if (before !== undefined) {
    const at = await index.find(before, count);
    end = at < 0 ? -1 : branch.indexOf(at);
    if (end < 0)
      throw new ApiError('validation_failed', `before must be the id of a message on the shown branch (no ${before.slice(0, 80)}).`, {
        field: 'before',
      });
  }
  const start = Math.max(0, end - limit);
  const positions = slice(branch, start, end);
  // One chain: the page's entries and a few before it (the first message's parent) in one read.
  if (positions.length > 0) await tree.preload(positions[0] - 16, positions[positions.length - 1] + 1);
  const items = await readPositions(index, positions, maxBytes);
  const byId = new Map((await Promise.all(positions.map(async (p) => [await tree.id(p), p] as const))).map(([id, p]) => [id, p]));
  const messages: MessageView[] = [];
  for (const item of items) {
    const view = publicMessage(item);
    const at = byId.get(item.id);
    if (item.role === 'system' || at === undefined) {
      messages.push(view);
      continue;
    }
    messages.push({ ...view, ...(await placeOf(tree, at)) } as MessageView);
  }
  const later = maxBytes === undefined ? 0 : (await index.entries(count, index.count)).filter((e) => e.role !== 'system').length;
  return { messages, has_more: start > 0, message_count: index.messageCount - later, log_grew: index.grew };
}

/**
 * The newest items of the branch ending at `userId` that fit in `budgetBytes` of log, starting at a
 * user message (a tool result never loses its call): what a turn may send to the model. Other
 * branches never reach it. `base` is the position of the first one on the branch.
 */
export async function branchHistory(index: LogIndex, userId: string, budgetBytes: number) {
  const tree = new IndexTree(index);
  const branch = await tree.branch(await tree.message(userId));
  const size = async (i: number) => (await tree.offset(branch.at(i) + 1)) - (await tree.offset(branch.at(i)));
  let start = branch.length;
  if (branch.length === index.count) {
    // One chain: the first item whose bytes start within the budget, found by bisection.
    start = await index.countBefore(Math.max(0, index.logBytes - budgetBytes));
  } else {
    for (let used = 0; start > 0; start -= 1) {
      used += await size(start - 1);
      if (used > budgetBytes) break;
    }
  }
  if (start > 0) {
    await tree.preload(branch.at(Math.min(start, branch.length - 1)) - 256, branch.at(branch.length - 1) + 1);
    let user = start;
    while (user < branch.length && (await tree.role(branch.at(user))) !== 'user') user += 1;
    if (user < branch.length) start = user;
    // One turn longer than the budget: from its user message.
    else while (start > 0 && (await tree.role(branch.at(start))) !== 'user') start -= 1;
  }
  return { items: await readPositions(index, slice(branch, start, branch.length)), base: start, messageCount: index.messageCount };
}
