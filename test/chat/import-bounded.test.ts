import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/** Converts every conversation of `file`, with the CPU time of the conversion alone and the event-loop turns that ran during it. */
async function convertFile(file: string, answers: number): Promise<{ cpuMs: number; turns: number; branches: number }> {
  let cpuMs = 0;
  let turns = 0;
  let branches = 0;
  for await (const { index, value } of jsonArrayElements(file)) {
    // Another task that wants the loop: it runs only when the conversion lets go of it.
    let converting = true;
    const tick = (): void => {
      if (!converting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const before = process.cpuUsage();
    const s = await convertChatGpt(value, index);
    const used = process.cpuUsage(before);
    converting = false;
    cpuMs += (used.user + used.system) / 1000;
    assert.equal(s.messageCount, answers + 1);
    branches = s.branches;
  }
  return { cpuMs, turns, branches };
}

describe('ChatGPT import is linear in its input', () => {
  it('an export with tens of thousands of siblings converts in work proportional to its size, letting go of the event loop as it goes', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-import-bounded-'));
    try {
      const write = (name: string, bytes: number) => {
        const { json, answers } = manySiblings(bytes);
        assert.ok(json.length >= bytes);
        const file = path.join(dir, name);
        writeFileSync(file, json);
        return { file, answers };
      };
      const small = write('small.json', 640 * 1024);
      const big = write('big.json', 5 * 1024 * 1024);
      await convertFile(small.file, small.answers); // warms the code up
      const a = await convertFile(small.file, small.answers);
      const b = await convertFile(big.file, big.answers);
      assert.equal(b.branches, big.answers, 'every answer a branch of its own');
      // Eight times the input costs about eight times the work (CPU time of this process, which a busy
      // machine does not inflate the way it does wall time); the quadratic grouping cost some 70 times.
      const ratio = b.cpuMs / Math.max(a.cpuMs, 1);
      assert.ok(ratio < 24, `8x the input cost ${ratio.toFixed(1)}x the work (${a.cpuMs.toFixed(0)} ms, then ${b.cpuMs.toFixed(0)} ms)`);
      // It lets other work run as it goes: at least once per 1000 siblings (each of its passes pauses every 1000 nodes).
      assert.ok(b.turns >= Math.floor(big.answers / 1000), `other work ran ${b.turns} times during ${big.answers} siblings`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
