import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CompactionRecord, StoredMessage } from '../../backend/chat/chat-types.js';
import { jsonArrayElements } from '../../backend/chat/json-array-stream.js';
import { activeLeaf, branchItems, buildTree, leafCount, pathTo, siblingInfo, userMessageOf } from '../../backend/chat/session-tree.js';
import { tempDir } from '../helpers/backend-process.js';

const at = '2026-01-01T00:00:00.000Z';
const msg = (id: string, role: StoredMessage['role'], parent?: string | null): StoredMessage => ({
  id,
  role,
  created_at: at,
  blocks: [{ type: 'text', text: id }],
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
const ids = (items: { id: string }[]) => items.map((i) => i.id);

describe('session tree', () => {
  it('reads a legacy log as one chain, then branches written after it', () => {
    const tree = buildTree([
      msg('u1', 'user'),
      msg('a1', 'assistant'),
      msg('u2', 'user'),
      msg('a2', 'assistant'),
      msg('u2b', 'user', 'a1'),
      msg('a2b', 'assistant', 'u2b'),
    ]);
    assert.deepEqual(ids(pathTo(tree, 'a2')), ['u1', 'a1', 'u2', 'a2']);
    assert.deepEqual(ids(pathTo(tree, 'a2b')), ['u1', 'a1', 'u2b', 'a2b']);
    assert.deepEqual(siblingInfo(tree, 'u2b'), { index: 2, count: 2 });
    assert.equal(activeLeaf(tree, undefined), 'a2b', 'no active leaf: the newest message');
    assert.equal(activeLeaf(tree, 'u2'), 'a2', 'continued to its newest leaf');
    assert.equal(activeLeaf(tree, 'gone'), 'a2b');
    assert.equal(leafCount(tree), 2);
  });

  it('finds the question a reply answers through its tool rounds, and keeps compactions to their branch', () => {
    const items = [
      msg('u1', 'user', null),
      msg('a1', 'assistant', 'u1'),
      msg('t1', 'tool', 'a1'),
      msg('a1x', 'assistant', 't1'),
      compaction('c1', 'a1x'),
      msg('u2', 'user', 'a1x'),
      msg('u1b', 'user', null),
    ];
    const tree = buildTree(items);
    assert.equal(userMessageOf(tree, 'a1x')?.id, 'u1');
    assert.equal(userMessageOf(tree, 'u2')?.id, 'u2');
    assert.deepEqual(ids(branchItems(tree, 'u2')), ['u1', 'a1', 't1', 'a1x', 'c1', 'u2']);
    assert.deepEqual(ids(branchItems(tree, 'u1b')), ['u1b']);
    assert.deepEqual(siblingInfo(tree, 'u1b'), { index: 2, count: 2 });
  });
});

describe('JSON array stream', () => {
  const file = (text: string) => {
    const f = path.join(tempDir('arr-'), 'a.json');
    writeFileSync(f, text);
    return f;
  };
  const all = async (text: string, chunk = 7) => {
    const out: unknown[] = [];
    for await (const { value } of jsonArrayElements(file(text), chunk)) out.push(value);
    return out;
  };

  it('yields each element across chunk boundaries, strings with brackets, escapes and multi-byte text intact', async () => {
    const values = [
      { a: '[x], {y}', b: 'quote \\" and \\\\' },
      [1, [2, [3]]],
      'plain',
      42,
      null,
      { zh: '你好，世界 🌏', nested: { deep: ['}', ']'] } },
    ];
    for (const chunk of [1, 3, 7, 64, 1 << 20]) {
      assert.deepEqual(
        await all(`\n [ ${values.map((v) => JSON.stringify(v, null, 1)).join(' ,\n')} ]\n`, chunk),
        values,
        `chunk ${chunk}`,
      );
    }
    assert.deepEqual(await all('[]'), []);
    assert.deepEqual(await all(' [ ] '), []);
  });

  it('names where a broken file breaks', async () => {
    const fails = async (text: string, path: string) => {
      await assert.rejects(all(text), (err: any) => err.path === path, text);
    };
    await fails('{"a": 1}', '');
    await fails('[{"a": 1}, {"b": ', '[1]');
    await fails('[{"a": 1}, {"b" 2}]', '[1]');
    await fails('[1] trailing', '');
    await fails('', '');
  });
});
