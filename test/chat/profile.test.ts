import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { rows } from './request-rows.js';

const ENTRY = fileURLToPath(new URL('./fixtures/tool-backend.js', import.meta.url));
const posts = (relay: RecordingRelay) => relay.requests.filter((r) => r.method === 'POST');

function cacheMarks(body: any): string[] {
  const marks: string[] = [];
  (body.system ?? []).forEach((b: any, i: number) => b.cache_control && marks.push(`system[${i}]`));
  (body.tools ?? []).forEach((t: any, i: number) => t.cache_control && marks.push(`tools[${i}]`));
  (body.messages ?? []).forEach((m: any, i: number) =>
    (Array.isArray(m.content) ? m.content : []).forEach((b: any, j: number) => b.cache_control && marks.push(`messages[${i}][${j}]`)),
  );
  return marks;
}

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`profile over ${type}: thinking, cache, language`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start([{ match: { userMessage: 'round' }, response: { content: 'Noted.' } }]);
      relay = await RecordingRelay.start(mock.url);
      rig = await ChatRig.start([{ id: 'p', type, base_url: type === 'native' ? relay.url : `${relay.url}/v1`, models: [model('m1')] }], {
        profile: { thinking: { enabled: true, budget: 5000 }, cache: { enabled: true, cache_threshold: 2 }, language: 'zh' },
        start: { entry: ENTRY, args: ['-swap-port', 'off'] },
      });
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('sends the thinking parameters, the language line, and cache markers once cache_threshold rounds exist', async () => {
      const sid = await rig.newSession();
      for (const n of [1, 2, 3]) assert.equal((await rig.turn(sid, `round ${n}`)).end.type, 'turn.completed');
      const [r1, r2, r3] = posts(relay).map((r) => r.json);
      for (const body of [r1, r2, r3]) {
        if (type === 'native') {
          assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 5000 });
          assert.ok(body.max_tokens > 5000);
          assert.match(body.system[0].text, /Simplified Chinese/);
        } else if (type === 'compat') {
          assert.equal(body.reasoning_effort, 'medium');
          assert.match(body.messages[0].content, /Simplified Chinese/);
        } else {
          assert.deepEqual(body.reasoning, { effort: 'medium', summary: 'auto' });
          assert.deepEqual(body.include, ['reasoning.encrypted_content']);
          assert.equal(body.store, false);
          assert.match(body.instructions, /Simplified Chinese/);
        }
      }
      // Rounds completed before each request: 0, 1, 2 → caching starts with the third.
      if (type === 'native') {
        assert.deepEqual(cacheMarks(r1), []);
        assert.deepEqual(cacheMarks(r2), []);
        // System, and the last block of the last message (the tools come first in the prefix).
        const last = r3.messages.length - 1;
        const tools = r3.tools.length - 1;
        assert.deepEqual(cacheMarks(r3), [`system[0]`, `tools[${tools}]`, `messages[${last}][0]`]);
        assert.deepEqual(r3.system[0].cache_control, { type: 'ephemeral' });
      } else {
        assert.equal(r1.prompt_cache_key, undefined);
        assert.equal(r2.prompt_cache_key, undefined);
        assert.equal(r3.prompt_cache_key, sid);
      }
    });

    it('sends no cache markers when cache is off, and no thinking when thinking is off', async () => {
      await rig.setProfile({ cache: { enabled: false, cache_threshold: 1 }, language: 'en' });
      relay.clear();
      const sid = await rig.newSession();
      for (const n of [1, 2]) await rig.turn(sid, `round ${n}`);
      const body = posts(relay).at(-1)!.json;
      assert.equal(body.prompt_cache_key, undefined);
      assert.deepEqual(cacheMarks(body), []);
      assert.equal(body.thinking ?? body.reasoning ?? body.reasoning_effort, undefined);
      assert.match(JSON.stringify(body), /Always reply in English/);
    });
  });
}

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`compression over ${type}`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      const usage = { prompt_tokens: 1500, completion_tokens: 5, input_tokens: 1500, output_tokens: 5 };
      mock = await Aimock.start([
        {
          match: { userMessage: 'Summarize this conversation' },
          response: { content: 'SUMMARY-OF-OLD: user loaded haiku and asked round 1.' },
        },
        {
          match: { userMessage: 'load the skill', hasToolResult: false },
          response: { toolCalls: [{ name: 'skills__activate_skill', arguments: '{"name":"haiku"}' }] },
        },
        { match: { userMessage: 'load the skill', hasToolResult: true }, response: { content: 'Skill loaded.', usage } },
        { match: { userMessage: 'round' }, response: { content: 'Reply to a round.', usage } },
      ]);
      relay = await RecordingRelay.start(mock.url);
      const baseUrl = type === 'native' ? relay.url : `${relay.url}/v1`;
      rig = await ChatRig.start([{ id: 'p', type, base_url: baseUrl, models: [model('m1', { context_window: 2000 })] }], {
        profile: { compression: { enabled: true, threshold_percent: 50, cooldown_seconds: 0 } },
        start: { entry: ENTRY, args: ['-swap-port', 'off'] },
      });
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('summarises the older rounds, keeps the recent ones and the skill body verbatim, and stores every original', async () => {
      const sid = await rig.newSession();
      await rig.turn(sid, 'load the skill');
      await rig.turn(sid, 'round 2');
      relay.clear();
      const { frames, end } = await rig.turn(sid, 'round 3');
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      const compacted = frames.find((f) => f.type === 'turn.compacted');
      assert.ok(compacted, 'a compaction happened');
      assert.ok(compacted.tokens_before >= 1000);
      assert.ok(compacted.tokens_after < compacted.tokens_before);

      const [summaryReq, turnReq] = posts(relay).map((r) => r.json);
      assert.match(JSON.stringify(summaryReq), /Summarize this conversation:.*load the skill/);
      const sent = rows(type, turnReq);
      // The summary replaces the old prefix: first thing after the system prompt.
      assert.equal(sent[0][0], 'user');
      assert.match(sent[0][1], /SUMMARY-OF-OLD/);
      assert.ok(!sent.some(([, t]) => t === 'load the skill'), 'the old user message is gone from the request');
      assert.ok(!sent.some(([, t]) => t === 'Skill loaded.'), 'the old reply is gone');
      // The skill body stays verbatim, with its call; then the recent rounds.
      assert.deepEqual(sent.slice(1), [
        ['call', 'skills__activate_skill'],
        ['result', 'SKILL BODY: write 5-7-5 syllables.'],
        ['user', 'round 2'],
        ['assistant', 'Reply to a round.'],
        ['user', 'round 3'],
      ]);

      const session = await rig.session(sid);
      const record = session.messages.find((m: any) => m.kind === 'compaction');
      assert.equal(record.role, 'system');
      assert.equal(record.through_message_id, compacted.through_message_id);
      assert.match(record.summary, /SUMMARY-OF-OLD/);
      assert.ok(
        session.messages.some((m: any) => m.blocks?.[0]?.text === 'load the skill'),
        'the stored history keeps every original',
      );
    });
  });
}
