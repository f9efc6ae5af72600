import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay, type RecordedRequest } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { rows } from './request-rows.js';

// Compaction counts the turn's `<knowledge>` block (DESIGN 6 compression, DESIGN 13 context block):
// the real backend and knowledge store, the raw requests seen through a recording relay. The mock
// reports the prompt size a long conversation would have (`usage`), so the gauge sits near the window.

const WINDOW = 2000;
/** Compression at 90 % of the window: 1,800 tokens. */
const THRESHOLD = 0.9 * WINDOW;
/** About 1,650 characters (≈ 420 tokens): the whole text fits in a quarter of the window, so it is sent whole. */
const MANUAL = Array.from(
  { length: 24 },
  (_, i) => `Rule ${i + 1}: the harbour crane KX-${i + 1} lifts at most ${i + 2} tonnes in calm wind.`,
).join('\n');

describe('compaction counts the knowledge block of a turn (compat, real knowledge store)', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  let kb: string;

  const completions = (from: number) => relay.requests.slice(from).filter((r) => r.path.endsWith('/chat/completions'));
  const isSummary = (r: RecordedRequest) => rows('compat', r.json).some(([, text]) => text.includes('Summarize this conversation'));

  async function turn(sid: string, body: Record<string, unknown>): Promise<{ end: any; frames: any[] }> {
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, body);
      const end = await watch.end(turn_id);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      return { end, frames: watch.frames(turn_id) };
    } finally {
      watch.close();
    }
  }

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'Summarize this conversation' }, response: { content: 'SUMMARY-OF-EARLIER-ROUNDS.' } },
      // A long conversation: each request measured at 1,650 tokens (near the 2,000-token window).
      { match: { userMessage: 'LONG-ROUND' }, response: { content: 'Noted.', usage: { prompt_tokens: 1650, completion_tokens: 4 } } },
      // A conversation whose measured requests already held the workspace's knowledge block.
      { match: { userMessage: 'WS-ROUND' }, response: { content: 'Noted.', usage: { prompt_tokens: 1500, completion_tokens: 4 } } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start(
      [
        {
          id: 'prov',
          type: 'compat',
          base_url: `${relay.url}/v1`,
          models: [model('plain', { context_window: WINDOW, supports_tools: false })],
        },
      ],
      { profile: { compression: { enabled: true, threshold_percent: 90, cooldown_seconds: 0 } } },
    );
    kb = (await rig.ok('POST', '/api/knowledge', { name: 'Cranes' })).id;
    const note = await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'note', title: 'Crane rules', text: MANUAL });
    for (;;) {
      const { sources } = await rig.ok('GET', `/api/knowledge/${kb}/sources`);
      const s = (sources as any[]).find((x) => x.id === note.id);
      if (s?.state === 'ready') break;
      assert.notEqual(s?.state, 'failed', JSON.stringify(s));
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  it('a long conversation plus a message KB block reaches the threshold: compacted before the request, never sent oversized', async () => {
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });

    // Without knowledge the same conversation stays under the threshold: nothing is summarised.
    const plain = await rig.newSession();
    for (const n of [1, 2]) await turn(plain, { content: `LONG-ROUND ${n}: note the crane schedule.` });
    let from = relay.requests.length;
    const control = await turn(plain, { content: 'LONG-ROUND 3: which crane lifts most?' });
    assert.equal(control.frames.filter((f) => f.type === 'turn.compacted').length, 0);
    assert.ok(!completions(from).some(isSummary), 'no summary request without the block');

    // The same conversation, the third message with the KB: its whole text goes in the request.
    const sid = await rig.newSession();
    for (const n of [1, 2]) await turn(sid, { content: `LONG-ROUND ${n}: note the crane schedule.` });
    from = relay.requests.length;
    const { frames } = await turn(sid, { content: 'LONG-ROUND 3: which crane lifts most?', knowledge_bases: [kb] });
    const compacted = frames.find((f) => f.type === 'turn.compacted');
    assert.ok(compacted, 'the knowledge block pushed the turn over the threshold');
    // What would have been sent: the measured conversation plus the block, more than the window holds.
    assert.ok(compacted.tokens_before > WINDOW, `tokens_before ${compacted.tokens_before} counts the block`);
    assert.ok(compacted.tokens_after < THRESHOLD, `tokens_after ${compacted.tokens_after}`);

    const sent = completions(from);
    assert.equal(sent.filter(isSummary).length, 1, 'one summary request');
    const request = sent.filter((r) => !isSummary(r)).at(-1)!;
    const conversation = rows('compat', request.json);
    assert.match(conversation[0]![1], /SUMMARY-OF-EARLIER-ROUNDS/, 'the older rounds reach the model as the summary');
    assert.ok(!conversation.some(([, text]) => text.includes('LONG-ROUND 1')), 'round 1 is no longer sent verbatim');
    const last = conversation.at(-1)!;
    assert.equal(last[0], 'user');
    assert.match(last[1], /<knowledge>[^]*KX-24 lifts at most 25 tonnes[^]*<\/knowledge>[^]*LONG-ROUND 3: which crane lifts most\?/);
    // The stored history keeps every message; the record shows where the summary applies.
    const session = await rig.session(sid);
    assert.equal(session.messages.filter((m: any) => m.kind === 'compaction').length, 1);
    assert.equal(session.messages.filter((m: any) => m.role === 'user').length, 3);
  });

  it('a workspace KB on every turn is counted once: its block in the last measure is not added twice', async () => {
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [kb] });
    try {
      const sid = await rig.newSession();
      for (const n of [1, 2]) await turn(sid, { content: `WS-ROUND ${n}: note the crane schedule.` });
      const from = relay.requests.length;
      // Measured 1,500 (block included) + the newer messages: under 1,800. Adding the block again
      // would pass it and summarise a conversation that fits.
      const { frames } = await turn(sid, { content: 'WS-ROUND 3: which crane lifts most?' });
      assert.equal(frames.filter((f) => f.type === 'turn.compacted').length, 0);
      const sent = completions(from);
      assert.ok(!sent.some(isSummary), 'no summary request');
      const conversation = rows('compat', sent.at(-1)!.json);
      assert.ok(
        conversation.some(([, text]) => text.includes('WS-ROUND 1')),
        'round 1 still goes verbatim',
      );
      assert.match(conversation.at(-1)![1], /<knowledge>[^]*KX-24 lifts at most 25 tonnes/);
    } finally {
      await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });
    }
  });
});
