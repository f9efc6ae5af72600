import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { convertChatGpt } from '../../backend/chat/import-chatgpt.js';
import { jsonArrayElements } from '../../backend/chat/json-array-stream.js';

/** A ChatGPT export of about `bytes`: one question answered again and again (siblings under one node). */
function manySiblings(bytes: number): { json: string; answers: number } {
  const mapping: Record<string, unknown> = {
    root: { id: 'root', parent: null, children: ['q'], message: null },
  };
  const q = { id: 'q', parent: 'root', children: [] as string[], message: null as unknown };
  q.message = { id: 'q', author: { role: 'user' }, create_time: 1_717_000_000, content: { content_type: 'text', parts: ['Again?'] } };
  mapping.q = q;
  let size = 0;
  let n = 0;
  while (size < bytes) {
    const id = `a${n++}`;
    q.children.push(id);
    const node = {
      id,
      parent: 'q',
      children: [],
      message: {
        id,
        author: { role: 'assistant' },
        create_time: 1_717_000_001 + n,
        content: { content_type: 'text', parts: [`Answer number ${n}.`] },
      },
    };
    mapping[id] = node;
    size += JSON.stringify(node).length;
  }
  return { json: JSON.stringify([{ title: 'Siblings', create_time: 1_717_000_000, current_node: 'a0', mapping }]), answers: n };
}

describe('ChatGPT import is linear in its input', () => {
  it('a 5 MB export with tens of thousands of siblings converts without holding the event loop', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-import-bounded-'));
    try {
      const { json, answers } = manySiblings(5 * 1024 * 1024);
      assert.ok(json.length >= 5 * 1024 * 1024);
      const file = path.join(dir, 'conversations.json');
      writeFileSync(file, json);
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      let sessions = 0;
      let branches = 0;
      for await (const { index, value } of jsonArrayElements(file)) {
        const s = await convertChatGpt(value, index);
        sessions++;
        branches = s.branches;
        assert.equal(s.messageCount, answers + 1);
      }
      delay.disable();
      assert.equal(sessions, 1);
      assert.equal(branches, answers, 'every answer a branch of its own');
      // The contract is 100 ms at a time; the quadratic grouping held it for tens of seconds. The bound
      // here is generous (a loaded, shared machine; the figure goes to the bench): what it catches is
      // work growing with the square, or a conversation converted in one go.
      const maxMs = delay.max / 1e6;
      assert.ok(maxMs < 600, `the event loop was held ${maxMs.toFixed(0)} ms at once`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
