import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConversation, completedRounds, UNFINISHED_CALL } from '../../backend/chat/conversation.js';
import { foldLog } from '../../backend/chat/session-log.js';
import { effortFor } from '../../backend/llm/adapter-kit.js';
import { nativeMessages } from '../../backend/llm/native-adapter.js';
import { httpFailure, scrub } from '../../backend/llm/provider-call.js';
import { SseDecoder } from '../../backend/llm/sse.js';

const enc = new TextEncoder();

describe('SSE decoder', () => {
  it('decodes events split at every byte, with CRLF, comments, multi-line data and a multi-byte character', () => {
    const text =
      ': keepalive\r\nevent: delta\r\ndata: {"t":"h\u00e9llo \u4e16\u754c"}\r\n\r\ndata: line1\ndata: line2\n\nevent: end\ndata: [DONE]';
    const bytes = enc.encode(text);
    const d = new SseDecoder();
    const events = [];
    for (let i = 0; i < bytes.length; i++) events.push(...d.push(bytes.subarray(i, i + 1)));
    events.push(...d.end());
    assert.deepEqual(events, [
      { event: 'delta', data: '{"t":"h\u00e9llo \u4e16\u754c"}' },
      { event: 'message', data: 'line1\nline2' },
      { event: 'end', data: '[DONE]' },
    ]);
  });

  it('handles a bare CR as a line end, but not a CR waiting for its LF', () => {
    const d = new SseDecoder();
    assert.deepEqual(d.push(enc.encode('data: a\r')), []);
    assert.deepEqual(d.push(enc.encode('\n\r\n')), [{ event: 'message', data: 'a' }]);
    assert.deepEqual(d.push(enc.encode('data: b\r\r')), [], 'the last CR may still be half of CRLF');
    assert.deepEqual(d.push(enc.encode('data: c\r\n\r\n')), [
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
  });
});

describe('events.jsonl folding', () => {
  it('skips a torn last line and keeps everything before it; deltas become an interrupted message', () => {
    const lines = [
      { t: 'message', m: { id: 'm1', role: 'user', created_at: 'x', blocks: [{ type: 'text', text: 'hi' }] } },
      { t: 'delta', id: 'm2', turn_id: 't1', kind: 'thinking', text: 'hm' },
      { t: 'delta', id: 'm2', turn_id: 't1', kind: 'text', text: 'Hel' },
      { t: 'delta', id: 'm2', turn_id: 't1', kind: 'text', text: 'lo' },
    ].map((r) => JSON.stringify(r));
    const log = foldLog(`${lines.join('\n')}\n{"t":"delta","id":"m2","tu`);
    assert.equal(log.skipped, 1);
    assert.equal(log.items.length, 2);
    assert.deepEqual((log.items[1] as any).blocks, [
      { type: 'thinking', text: 'hm' },
      { type: 'text', text: 'Hello' },
    ]);
    assert.equal((log.items[1] as any).interrupted, true);
    // The final record replaces the deltas in place.
    const done = JSON.stringify({
      t: 'message',
      m: { id: 'm2', role: 'assistant', created_at: 'y', blocks: [{ type: 'text', text: 'Hello!' }] },
    });
    const full = foldLog(`${lines.join('\n')}\n${done}\n`);
    assert.deepEqual((full.items[1] as any).blocks, [{ type: 'text', text: 'Hello!' }]);
    assert.equal((full.items[1] as any).interrupted, undefined);
  });
});

describe('conversation', () => {
  const user = (id: string, text: string) => ({ id, role: 'user' as const, created_at: '', blocks: [{ type: 'text' as const, text }] });
  it('answers tool calls a stopped turn left open, and counts completed rounds', () => {
    const items = [
      user('u1', 'go'),
      {
        id: 'a1',
        role: 'assistant' as const,
        created_at: '',
        blocks: [{ type: 'tool_call' as const, call_id: 'c1', server: 's', tool: 't', name: 's__t', arguments: {} }],
      },
      user('u2', 'next'),
    ];
    const conv = buildConversation(items);
    assert.deepEqual(conv[2], { role: 'tool', blocks: [{ type: 'tool_result', call_id: 'c1', ok: false, content: UNFINISHED_CALL }] });
    assert.equal(completedRounds(items), 1);
    // Native: the tool result leads the user turn it shares with the next question.
    const native = nativeMessages(conv);
    assert.deepEqual(
      native.map((m) => [m.role, m.content.map((b) => b.type)]),
      [
        ['user', ['text']],
        ['assistant', ['tool_use']],
        ['user', ['tool_result', 'text']],
      ],
    );
  });
});

describe('provider errors', () => {
  it('maps statuses and scrubs the key', () => {
    const key = 'sk-live-abcdef123456';
    assert.equal(httpFailure(401, '{}', null, key).code, 'provider_unauthorized');
    assert.equal(httpFailure(403, '{}', null, key).code, 'provider_unauthorized');
    const limited = httpFailure(429, '{"error":{"message":"x"}}', '7', key);
    assert.deepEqual([limited.code, limited.retryAfter, limited.retryable], ['provider_rate_limited', 7, true]);
    assert.equal(httpFailure(529, '', null, key).code, 'provider_rate_limited');
    assert.equal(httpFailure(503, '{"error":{"type":"overloaded_error","message":"busy"}}', null, key).code, 'provider_rate_limited');
    assert.equal(httpFailure(400, '{"error":{"message":"prompt is too long: 300000 tokens"}}', null, key).code, 'context_overflow');
    assert.equal(httpFailure(500, 'oops', null, key).code, 'provider_error');
    const leaked = httpFailure(401, JSON.stringify({ error: { message: `bad key ${key}` } }), null, key);
    assert.ok(!leaked.message.includes(key));
    assert.equal(scrub(`Authorization: Bearer ${key}x`, key), 'Authorization: Bearer ***');
  });

  it('maps the thinking budget to an effort', () => {
    assert.deepEqual([1024, 4095, 4096, 16383, 16384].map(effortFor), ['low', 'low', 'medium', 'medium', 'high']);
  });
});
