import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model, TEST_KEY } from './chat-harness.js';
import { compat, native, responses } from './scripts.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('provider failures and protocol quirks', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  const use = (provider: string) => rig.setProfile({ model: `${provider}:m1` });
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start(
      [
        { id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] },
        { id: 'n', type: 'native', base_url: fake.url, models: [model('m1')] },
        { id: 'r', type: 'responsemode', base_url: `${fake.url}/v1`, models: [model('m1')] },
        { id: 'dead', type: 'compat', base_url: 'http://127.0.0.1:9/v1', models: [model('m1')] },
      ],
      { profile: { model: 'c:m1' } },
    );
  });
  beforeEach(async () => {
    fake.seen.length = 0;
    await use('c');
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('compat: reasoning_content, inline <think>, usage with choices: null, chunks without choices', async () => {
    fake.next({
      chunks: [
        compat.delta({ role: 'assistant', reasoning_content: 'Weighing ' }),
        compat.delta({ reasoning_content: 'options.' }),
        compat.text('Use '),
        compat.text('tabs.'),
        compat.stop(),
        compat.usage(20, 4, null),
        compat.done(),
      ],
    });
    const sid = await rig.newSession();
    const { frames, end } = await rig.turn(sid, 'tabs or spaces?');
    assert.equal(end.type, 'turn.completed');
    const session = await rig.session(sid);
    assert.deepEqual(session.messages[1].blocks, [
      { type: 'thinking', text: 'Weighing options.' },
      { type: 'text', text: 'Use tabs.' },
    ]);
    const usage = frames.find((f) => f.type === 'turn.usage');
    assert.deepEqual([usage.input, usage.output], [20, 4]);

    fake.next({ chunks: [compat.text('<thi'), compat.text('nk>pondering</th'), compat.text('ink>Answer'), compat.stop(), compat.done()] });
    await rig.turn(sid, 'again');
    const again = await rig.session(sid);
    assert.deepEqual(again.messages[3].blocks, [
      { type: 'thinking', text: 'pondering' },
      { type: 'text', text: 'Answer' },
    ]);
  });

  it('compat: a mid-stream error event ends the turn as provider_error and keeps the partial text', async () => {
    fake.next({ chunks: [compat.text('Partial ans'), 'data: {"error":{"message":"backend exploded","type":"server_error"}}\n\n'] });
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'go');
    assert.equal(end.type, 'turn.failed');
    assert.equal(end.error.code, 'provider_error');
    assert.match(end.error.message, /backend exploded/);
    const session = await rig.session(sid);
    assert.deepEqual(session.messages[1].blocks, [{ type: 'text', text: 'Partial ans' }]);
  });

  it('a malformed stream is provider_error; a connection lost mid-stream is provider_unreachable; both keep the text', async () => {
    fake.next({ chunks: [compat.text('Some text'), 'data: {"choices": [oops\n\n'] });
    const sid = await rig.newSession();
    const malformed = await rig.turn(sid, 'one');
    assert.equal(malformed.end.error.code, 'provider_error');
    assert.match(malformed.end.error.message, /malformed/);

    fake.next({ chunks: [compat.text('Cut off he'), ''], then: 'destroy', delayMs: 50 });
    const lost = await rig.turn(sid, 'two');
    assert.equal(lost.end.error.code, 'provider_unreachable');
    const session = await rig.session(sid);
    const texts = session.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.blocks[0].text);
    assert.deepEqual(texts, ['Some text', 'Cut off he']);
  });

  it('an unreachable provider is provider_unreachable', async () => {
    await use('dead');
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'anyone?');
    assert.equal(end.error.code, 'provider_unreachable');
  });

  it('429 with Retry-After is retried after the wait, then succeeds; 529 too', async () => {
    fake.next(
      { status: 429, headers: { 'retry-after': '1' }, chunks: ['{"error":{"message":"slow down","type":"rate_limit_error"}}'] },
      { status: 529, headers: { 'retry-after': '0' }, chunks: ['{"error":{"message":"overloaded","type":"overloaded_error"}}'] },
      { chunks: compat.reply('Finally.') },
    );
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'hi');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.equal(fake.seen.length, 3);
    const session = await rig.session(sid);
    assert.equal(session.messages[1].blocks[0].text, 'Finally.');
    await rig.proc.waitForLine(/chat: turn \S+: retry 1 in 1s/);
  });

  it('gives up after 3 retries as provider_rate_limited', async () => {
    const limited = { status: 429, headers: { 'retry-after': '0' }, chunks: ['{"error":{"message":"no"}}'] };
    fake.next(limited, limited, limited, limited, { chunks: compat.reply('never') });
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'hi');
    assert.equal(end.error.code, 'provider_rate_limited');
    assert.equal(fake.seen.length, 4);
  });

  it('does not wait for a Retry-After beyond the timeout; a too-long prompt is context_overflow', async () => {
    await rig.setProfile({ model: 'c:m1', timeout_seconds: 5 });
    fake.next(
      { status: 429, headers: { 'retry-after': '60' }, chunks: ['{"error":{"message":"later"}}'] },
      { chunks: compat.reply('never') },
    );
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'hi');
    assert.equal(end.error.code, 'provider_rate_limited');
    assert.equal(fake.seen.length, 1, 'a wait past the timeout is not started');
    // Waiting would have ended the turn as timeout instead.

    fake.next({
      status: 400,
      chunks: ['{"error":{"message":"This model\'s maximum context length is 8192 tokens","type":"invalid_request_error"}}'],
    });
    const overflow = await rig.turn(sid, 'a very long prompt');
    assert.equal(overflow.end.error.code, 'context_overflow');
  });

  it('401 fails at once as provider_unauthorized; a body echoing the key never leaks it', async () => {
    const echo = JSON.stringify({
      error: { message: `Incorrect API key provided: ${TEST_KEY}. Authorization: Bearer ${TEST_KEY}`, type: 'invalid_request_error' },
    });
    fake.next({ status: 401, chunks: [echo] }, { chunks: compat.reply('never') });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const { turn_id } = await rig.send(sid, 'hi');
    const end = await watch.end(turn_id);
    assert.equal(end.error.code, 'provider_unauthorized');
    assert.equal(fake.seen.length, 1, 'no retry');
    assert.match(end.error.message, /Incorrect API key provided: \*\*\*/);
    // A tool result or mid-stream error echoing the key is scrubbed the same way.
    await use('n');
    fake.next({ chunks: [native.start(), ...native.textBlock(0, 'x'), native.error('api_error', `bad key ${TEST_KEY}`)] });
    const second = await rig.send(sid, 'again');
    const end2 = await watch.end(second.turn_id);
    assert.equal(end2.error.code, 'provider_error');
    assert.ok(!end2.error.message.includes(TEST_KEY));
    assert.ok(!JSON.stringify(watch.conn.messages).includes(TEST_KEY), 'no frame carries the key');
    watch.close();
    const logs = await rig.ok('GET', '/api/logs');
    assert.ok(!JSON.stringify(logs).includes(TEST_KEY), 'no log line carries the key');
    assert.ok(!rig.proc.output().includes(TEST_KEY), 'stdout/stderr never carry the key');
    for (const file of filesUnder(rig.proc.dataDir)) {
      if (path.basename(file) === 'config.yaml') continue;
      assert.ok(!readFileSync(file, 'utf8').includes(TEST_KEY), `${file} carries the key`);
    }
  });

  it('native: ping is skipped; an overloaded error event before any output is retried', async () => {
    await use('n');
    fake.next(
      { chunks: [native.start(), native.ping(), native.error('overloaded_error', 'Overloaded')] },
      { chunks: [native.start(30), native.ping(), ...native.textBlock(0, 'Recovered.'), native.ping(), ...native.end(8)] },
    );
    const sid = await rig.newSession();
    const { frames, end } = await rig.turn(sid, 'hi');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.equal(fake.seen.length, 2);
    const usage = frames.find((f) => f.type === 'turn.usage');
    assert.deepEqual([usage.input, usage.output], [30, 8]);
  });

  it('native: an error event after text ends the turn and keeps the text', async () => {
    await use('n');
    fake.next({ chunks: [native.start(), ...native.textBlock(0, 'Half'), native.error('overloaded_error', 'Overloaded')] });
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'hi');
    assert.equal(end.error.code, 'provider_rate_limited');
    assert.equal(fake.seen.length, 1, 'not retried once text streamed');
    assert.equal((await rig.session(sid)).messages[1].blocks[0].text, 'Half');
  });

  it('responsemode: response.incomplete ends with stop_reason max_tokens; usage splits cached input', async () => {
    await use('r');
    fake.next({ chunks: [responses.created(), ...responses.message('Trunc'), responses.incomplete('max_output_tokens')] });
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'long essay');
    assert.equal(end.type, 'turn.completed');
    assert.equal(end.stop_reason, 'max_tokens');
    fake.next({ chunks: [responses.created(), ...responses.message('Ok'), responses.completed()] });
    const { frames } = await rig.turn(sid, 'short');
    const usage = frames.find((f) => f.type === 'turn.usage');
    assert.deepEqual(usage, { ...usage, input: 5, cache_read: 2, output: 3, reasoning: 1 });
  });
});
