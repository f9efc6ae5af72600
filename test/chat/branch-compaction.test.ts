import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { rows } from './request-rows.js';

const posts = (relay: RecordingRelay) => relay.requests.filter((r) => r.method === 'POST');

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`compaction per branch over ${type}`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      const usage = { prompt_tokens: 1500, completion_tokens: 5, input_tokens: 1500, output_tokens: 5 };
      mock = await Aimock.start([
        { match: { userMessage: 'Summarize this conversation' }, response: { content: 'SUMMARY-OF-ROUND-ONE.' } },
        { match: { userMessage: 'round' }, response: { content: 'Reply to a round.', usage } },
      ]);
      relay = await RecordingRelay.start(mock.url);
      const baseUrl = type === 'native' ? relay.url : `${relay.url}/v1`;
      rig = await ChatRig.start([{ id: 'p', type, base_url: baseUrl, models: [model('m1', { context_window: 2000 })] }], {
        profile: { compression: { enabled: true, threshold_percent: 50, cooldown_seconds: 0 } },
      });
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('a compaction applies to the branches that hold its through message, and to no other', async () => {
      const sid = await rig.newSession();
      for (const n of [1, 2, 3]) await rig.turn(sid, `round ${n}`);
      const compacted = await rig.session(sid);
      const record = compacted.messages.find((m: any) => m.kind === 'compaction');
      assert.ok(record, 'the third round compacted the first');
      const [u1, a1, u2] = compacted.messages.filter((m: any) => m.role !== 'system');
      assert.equal(record.through_message_id, a1.id);

      // Edit round 2: the branch still holds round 1's reply, so the summary stands for it.
      relay.clear();
      await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'round 2 edited', parent_id: u2.parent_id });
      await waitIdle(rig, sid);
      const onBranch = rows(type, posts(relay).at(-1)!.json);
      assert.match(onBranch[0][1], /SUMMARY-OF-ROUND-ONE/);
      assert.deepEqual(onBranch.slice(1), [['user', 'round 2 edited']]);
      const page = await rig.session(sid);
      assert.ok(
        page.messages.some((m: any) => m.kind === 'compaction'),
        'the record shows on the branch it applies to',
      );

      // Edit round 1: a branch without the through message gets no summary and no record.
      relay.clear();
      await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'round 1 edited', parent_id: u1.parent_id });
      await waitIdle(rig, sid);
      const offBranch = rows(type, posts(relay).at(-1)!.json);
      assert.deepEqual(offBranch, [['user', 'round 1 edited']]);
      const other = await rig.session(sid);
      assert.ok(!other.messages.some((m: any) => m.kind === 'compaction'));
      assert.equal(other.messages[0].parent_id, null);
      assert.deepEqual(other.messages[0].siblings, { index: 2, count: 2 });
    });
  });
}

async function waitIdle(rig: ChatRig, sid: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const s = await rig.session(sid);
    if (!s.active_turn) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the turn did not end');
}
