import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { branchHistory, branchPage } from '../../backend/chat/branch-page.js';
import type { CompactionRecord, LogRecord, MessageView, StoredMessage } from '../../backend/chat/chat-types.js';
import { LogIndex } from '../../backend/chat/log-index.js';
import { readLog, recordLine } from '../../backend/chat/session-log.js';
import { activeLeaf, branchItems, buildTree, siblingInfo } from '../../backend/chat/session-tree.js';
import { tempDir } from '../helpers/backend-process.js';

/**
 * The branch-aware paging of the offset index (events.idx v2) against the reference: the whole log
 * folded and `session-tree.ts`. Whatever the index answers must be what the tree answers.
 */
const at = '2026-01-01T00:00:00.000Z';
const msg = (id: string, role: StoredMessage['role'], parent?: string | null): StoredMessage => ({
  id,
  role,
  created_at: at,
  blocks: [{ type: 'text', text: `text of ${id}` }],
  ...(parent !== undefined ? { parent_id: parent } : {}),
});
const compaction = (id: string, through: string): CompactionRecord => ({
  id,
  role: 'system',
  kind: 'compaction',
  created_at: at,
  summary: 's',
  through_message_id: through,
  tokens_before: 0,
  tokens_after: 0,
});

function logFile(records: LogRecord[]): string {
  const file = path.join(tempDir('svc-bidx-'), 'events.jsonl');
  writeFileSync(file, records.map(recordLine).join(''));
  return file;
}

type Shown = { id: string; parent_id?: string | null; siblings?: { index: number; count: number } };
const shape = (m: MessageView): Shown =>
  m.role === 'system' ? { id: m.id } : { id: m.id, parent_id: m.parent_id ?? null, siblings: m.siblings };

/** What the page should hold: the reference tree's branch, every message with its parent and place. */
async function reference(file: string, active: string | null): Promise<Shown[]> {
  const tree = buildTree((await readLog(file)).items);
  return branchItems(tree, activeLeaf(tree, active)).map((i) =>
    i.role === 'system' ? { id: i.id } : { id: i.id, parent_id: i.parent_id ?? null, siblings: siblingInfo(tree, i.id) },
  );
}

/** Every page of the shown branch, newest first, concatenated oldest first. */
async function allPages(file: string, active: string | null, limit: number): Promise<Shown[]> {
  const out: Shown[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await branchPage(await LogIndex.open(file), active, before, limit);
    out.unshift(...page.messages.map(shape));
    if (!page.has_more) return out;
    before = page.messages[0].id;
  }
}

/** A tree grown by turns, edits (a new question under an earlier reply) and regenerations. */
function grownTree(turns: number, seed: number): { records: LogRecord[]; ids: string[] } {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) as number;
  const records: LogRecord[] = [];
  const replies: string[] = [];
  const users: string[] = [];
  let leaf: string | null = null;
  for (let t = 0; t < turns; t++) {
    const r = rand();
    if (r < 0.15 && users.length > 0) {
      // Regenerate: a second reply to an earlier question.
      const u = users[Math.floor(rand() * users.length)];
      const a = `a${t}`;
      records.push({ t: 'delta', id: a, turn_id: `t${t}`, kind: 'text', text: 'partial ', parent_id: u });
      records.push({ t: 'message', m: msg(a, 'assistant', u) });
      replies.push(a);
      leaf = a;
      continue;
    }
    const parent = r < 0.3 && replies.length > 0 ? replies[Math.floor(rand() * replies.length)] : leaf;
    const u = `u${t}`;
    const a = `a${t}`;
    records.push({ t: 'message', m: msg(u, 'user', parent) });
    records.push({ t: 'message', m: msg(a, 'assistant', u) });
    if (t % 17 === 5) records.push({ t: 'compaction', c: compaction(`c${t}`, u) });
    users.push(u);
    replies.push(a);
    leaf = a;
  }
  return { records, ids: [...users, ...replies] };
}

describe('branch paging from the offset index', () => {
  it('pages the shown branch with parents and sibling places as the tree does, for any active message', async () => {
    const { records, ids } = grownTree(400, 7);
    const file = logFile(records);
    const index = await LogIndex.open(file);
    assert.ok(index.irregular > 0, 'a tree with branches is not one chain');
    for (const active of [null, ids[3], ids[100], ids[250], ids[ids.length - 1], 'no-such-id']) {
      assert.deepEqual(await allPages(file, active, 13), await reference(file, active), `active ${active}`);
    }
  });

  it('reads a legacy log as one chain, and branches appended later (a parent far back) after it', async () => {
    const legacy: LogRecord[] = [];
    for (let i = 0; i < 600; i++) legacy.push({ t: 'message', m: msg(`m${i}`, i % 2 ? 'assistant' : 'user') });
    // A legacy text that merely mentions "parent_id" is no link.
    legacy.push({ t: 'message', m: { ...msg('m600', 'user'), blocks: [{ type: 'text', text: 'what is "parent_id":"m1"?' }] } });
    const file = logFile(legacy);
    const chain = await LogIndex.open(file);
    assert.equal(chain.irregular, 0);
    assert.deepEqual(await allPages(file, null, 50), await reference(file, null));
    assert.equal(shape((await branchPage(chain, null, undefined, 5)).messages[4]).parent_id, 'm599');
    // An edit of the second question, 600 entries back (beyond the indexer's recent ids), appended to an indexed log.
    appendFileSync(
      file,
      recordLine({ t: 'message', m: msg('edit', 'user', 'm1') }) + recordLine({ t: 'message', m: msg('reply', 'assistant', 'edit') }),
    );
    const grown = await LogIndex.open(file);
    assert.ok(grown.grew && grown.irregular > 0);
    assert.deepEqual(await allPages(file, 'edit', 50), await reference(file, 'edit'));
    assert.deepEqual(await allPages(file, 'm300', 50), await reference(file, 'm300'));
    const page = await branchPage(grown, 'm2', undefined, 3);
    assert.deepEqual(page.messages.map(shape).slice(-1), [{ id: 'm600', parent_id: 'm599', siblings: { index: 1, count: 1 } }]);
  });

  it('rebuilds an index of the older format, and reads parent_id written in another key order', async () => {
    const records = grownTree(60, 3).records;
    const file = logFile(records);
    // A hand-written line: parent_id after the blocks.
    const last = records.filter((r) => r.t === 'message').at(-1) as Extract<LogRecord, { t: 'message' }>;
    appendFileSync(
      file,
      `${JSON.stringify({ t: 'message', m: { id: 'late', role: 'user', blocks: [], created_at: at, parent_id: 'u0' } })}\n`,
    );
    const idx = file.replace(/\.jsonl$/, '.idx');
    await LogIndex.open(file);
    const v2 = readFileSync(idx);
    // An index of version 01 (48-byte entries, no links) must not be read as one.
    const old = Buffer.alloc(32);
    old.write('SVCIDX01', 0, 'latin1');
    writeFileSync(idx, old);
    const rebuilt = await LogIndex.open(file);
    assert.ok(rebuilt.grew);
    assert.deepEqual(readFileSync(idx), v2);
    assert.deepEqual(await allPages(file, 'late', 7), await reference(file, 'late'));
    assert.deepEqual(await allPages(file, last.m.id, 7), await reference(file, last.m.id));
  });

  it('finds a parent_id that lies across the 1 MiB read boundary', async () => {
    const head = [msg('m0', 'user'), msg('m1', 'assistant')].map((m) => recordLine({ t: 'message', m })).join('');
    const line = (filler: number) =>
      `${JSON.stringify({ t: 'message', m: { id: 'x', role: 'user', created_at: at, blocks: [{ type: 'text', text: 'a'.repeat(filler) }], parent_id: 'm0' } })}\n`;
    const needleAt = (filler: number) => Buffer.byteLength(head) + line(filler).indexOf('"parent_id"');
    // The needle starts 4 bytes before the end of the first 1 MiB chunk.
    const filler = 1024 * 1024 - 4 - needleAt(0);
    assert.equal(needleAt(filler), 1024 * 1024 - 4);
    const file = logFile([]);
    writeFileSync(file, head + line(filler));
    const page = await branchPage(await LogIndex.open(file), 'x', undefined, 10);
    assert.deepEqual(page.messages.map(shape), [
      { id: 'm0', parent_id: null, siblings: { index: 1, count: 1 } },
      { id: 'x', parent_id: 'm0', siblings: { index: 2, count: 2 } },
    ]);
  });

  it('gives a turn its own branch only, cut to the budget at a user message', async () => {
    const { records } = grownTree(300, 11);
    const file = logFile(records);
    const tree = buildTree((await readLog(file)).items);
    const users = [...tree.byId.values()].filter((m) => m.role === 'user');
    for (const user of [users[0], users[50], users[users.length - 1]]) {
      const expected = branchItems(tree, user.id).map((i) => i.id);
      const whole = await branchHistory(await LogIndex.open(file), user.id, 1e9);
      assert.deepEqual(
        whole.items.map((i) => i.id),
        expected,
      );
      assert.equal(whole.base, 0);
      const cut = await branchHistory(await LogIndex.open(file), user.id, 2000);
      const ids = cut.items.map((i) => i.id);
      assert.deepEqual(ids, expected.slice(cut.base), 'the newest part of the branch');
      assert.ok(ids.length < expected.length || expected.length < 10);
      assert.equal(cut.items[0].role, 'user');
    }
  });
});
