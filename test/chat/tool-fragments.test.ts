import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ScriptedSse, sse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat, native } from './scripts.js';

const ENTRY = fileURLToPath(new URL('./fixtures/tool-backend.js', import.meta.url));

describe('tool-call fragments and cache usage from a scripted provider', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start(
      [
        { id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] },
        { id: 'n', type: 'native', base_url: fake.url, models: [model('m1')] },
      ],
      { start: { entry: ENTRY, args: ['-swap-port', 'off'] }, profile: { model: 'c:m1' } },
    );
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('compat: parallel calls interleaved by index are put together and each answered', async () => {
    await rig.setProfile({ model: 'c:m1' });
    const call = (index: number, fn: Record<string, unknown>, id?: string) =>
      compat.delta({ tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: fn }] });
    fake.next(
      {
        chunks: [
          call(0, { name: 'fs__read_file', arguments: '' }, 'call_A'),
          call(1, { name: 'fs__read_file', arguments: '' }, 'call_B'),
          call(0, { arguments: '{"pa' }),
          call(1, { arguments: '{"path":' }),
          call(0, { arguments: 'th":"/a"}' }),
          call(1, { arguments: '"/b"}' }),
          compat.stop('tool_calls'),
          compat.usage(10, 5),
          compat.done(),
        ],
      },
      { chunks: compat.reply('Read both.') },
    );
    const sid = await rig.newSession();
    const { frames, end } = await rig.turn(sid, 'read two files');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const calls = frames.filter((f) => f.type === 'turn.tool_call');
    assert.deepEqual(
      calls.map((c) => c.arguments),
      [{ path: '/a' }, { path: '/b' }],
    );
    // Frames carry the backend's own ids; the provider's (call_A, call_B) go back to the provider only.
    assert.ok(calls.every((c) => /^call_[A-Za-z0-9_-]{16}$/.test(c.call_id)));
    assert.notEqual(calls[0].call_id, calls[1].call_id);
    const second = fake.seen[1].json.messages;
    assert.deepEqual(
      second.slice(-2).map((m: any) => [m.role, m.tool_call_id]),
      [
        ['tool', 'call_A'],
        ['tool', 'call_B'],
      ],
    );
    assert.match(second.at(-1).content, /contents of \/b/);
  });

  it('a call with arguments that are not JSON gets an error result, and the turn goes on', async () => {
    await rig.setProfile({ model: 'c:m1' });
    fake.next(
      {
        chunks: [
          compat.delta({
            tool_calls: [{ index: 0, id: 'call_X', type: 'function', function: { name: 'fs__read_file', arguments: '{"path": /x' } }],
          }),
          compat.stop('tool_calls'),
          compat.done(),
        ],
      },
      { chunks: compat.reply('Sorry.') },
    );
    const sid = await rig.newSession();
    const { frames, end } = await rig.turn(sid, 'broken call');
    assert.equal(end.type, 'turn.completed');
    const result = frames.find((f) => f.type === 'turn.tool_result');
    assert.equal(result.ok, false);
    assert.match(result.content, /not a JSON object/);
    assert.ok(!rig.proc.output().includes('/x'), 'the tool never ran');
  });

  it('native: input_json_delta pieces, cache read/write usage taken from message_start and message_delta', async () => {
    await rig.setProfile({ model: 'n:m1' });
    const start = sse.event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg',
        model: 'm1',
        usage: { input_tokens: 40, output_tokens: 1, cache_creation_input_tokens: 300, cache_read_input_tokens: 1200 },
      },
    });
    fake.next(
      {
        chunks: [
          start,
          sse.event('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'fs__read_file', input: {} },
          }),
          sse.event('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"path"' },
          }),
          sse.event('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: ':"/n"}' },
          }),
          sse.event('content_block_stop', { type: 'content_block_stop', index: 0 }),
          ...native.end(20, 'tool_use'),
        ],
      },
      { chunks: [native.start(50), ...native.textBlock(0, 'Done.'), ...native.end(3)] },
    );
    const sid = await rig.newSession();
    const { frames, end } = await rig.turn(sid, 'native tool');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.deepEqual(frames.find((f) => f.type === 'turn.tool_call').arguments, { path: '/n' });
    const usage = frames.find((f) => f.type === 'turn.usage');
    // Two model calls in the turn: their usages add up; within each call they are cumulative.
    assert.deepEqual(
      { input: usage.input, output: usage.output, cache_read: usage.cache_read, cache_write: usage.cache_write },
      { input: 90, output: 23, cache_read: 1200, cache_write: 300 },
    );
    const session = await rig.session(sid);
    assert.equal(session.usage.cache_read, 1200);
  });

  it('cancel does not wait for a tool call that never answers; the open call gets an error result next time', async () => {
    await rig.setProfile({ model: 'c:m1' });
    fake.next({
      chunks: [
        compat.delta({ tool_calls: [{ index: 0, id: 'call_H', type: 'function', function: { name: 'fs__hang', arguments: '{}' } }] }),
        compat.stop('tool_calls'),
        compat.done(),
      ],
    });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const { turn_id } = await rig.send(sid, 'hang');
    await watch.wait(turn_id, (f) => f.type === 'turn.tool_call');
    await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/cancel`);
    assert.equal((await watch.end(turn_id)).error.code, 'cancelled');
    watch.close();
    fake.next({ chunks: compat.reply('ok') });
    const before = fake.seen.length;
    assert.equal((await rig.turn(sid, 'next')).end.type, 'turn.completed');
    const sent = fake.seen[before].json.messages;
    const result = sent.find((m: any) => m.role === 'tool');
    assert.equal(result.tool_call_id, 'call_H');
    assert.match(result.content, /^Error: The tool call was not run/);
  });
});

describe('a tool provider that fails to list its tools', () => {
  it('ends the turn as tool_error with its reason', async () => {
    const rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: 'http://127.0.0.1:9/v1', models: [model('m1')] }], {
      start: { entry: ENTRY, args: ['-swap-port', 'off'], env: { TEST_TOOLS_FAIL: 'list' } },
    });
    try {
      const sid = await rig.newSession();
      const { end } = await rig.turn(sid, 'hi');
      assert.equal(end.error.code, 'tool_error');
      assert.match(end.error.message, /spawn ENOENT/);
    } finally {
      await rig.proc.stop();
      rig.proc.cleanup();
    }
  });
});
