import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { rows, systemText } from './request-rows.js';

const FIXTURES = [
  { match: { userMessage: 'alpha' }, response: { content: 'Alpha answer.' } },
  { match: { userMessage: 'beta' }, response: { content: 'Beta answer.' } },
  { match: { userMessage: 'gamma' }, response: { content: 'Gamma answer.' } },
  { match: { userMessage: 'delta' }, response: { content: 'Delta answer.' } },
];
const posts = (relay: RecordingRelay) => relay.requests.filter((r) => r.method === 'POST');
const texts = (session: any) => session.messages.map((m: any) => m.blocks?.[0]?.text ?? `[${m.kind}]`);

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`branches over ${type}: edit, regenerate, switch, fork, instructions, overrides`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start(FIXTURES);
      relay = await RecordingRelay.start(mock.url);
      const baseUrl = type === 'native' ? relay.url : `${relay.url}/v1`;
      rig = await ChatRig.start([
        {
          id: 'p',
          type,
          base_url: baseUrl,
          models: [model('m1', { supports_thinking: false }), model('m2', { supports_thinking: true, context_window: 64_000 })],
        },
      ]);
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    const lastSent = () => rows(type, posts(relay).at(-1)!.json);

    it('an edit starts a new branch: the request holds only its own branch, both branches stay', async () => {
      const sid = await rig.newSession();
      await rig.turn(sid, 'alpha one');
      const { end } = await rig.turn(sid, 'beta two');
      assert.equal(end.type, 'turn.completed');
      const before = await rig.session(sid);
      const beta = before.messages[2];
      assert.equal(beta.blocks[0].text, 'beta two');
      assert.equal(beta.parent_id, before.messages[1].id);
      assert.deepEqual(beta.siblings, { index: 1, count: 1 });

      // Edit "beta two" → "gamma three": same parent, new branch.
      const watch = await rig.watch();
      const sent = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'gamma three', parent_id: beta.parent_id });
      const started = await watch.wait(sent.turn_id, (f) => f.type === 'turn.started');
      assert.equal(started.user_message_id, sent.message_id);
      assert.equal(started.parent_id, beta.parent_id);
      await watch.end(sent.turn_id);
      watch.close();
      assert.deepEqual(lastSent(), [
        ['user', 'alpha one'],
        ['assistant', 'Alpha answer.'],
        ['user', 'gamma three'],
      ]);
      const edited = await rig.session(sid);
      assert.deepEqual(texts(edited), ['alpha one', 'Alpha answer.', 'gamma three', 'Gamma answer.']);
      assert.deepEqual(edited.messages[2].siblings, { index: 2, count: 2 });
      assert.equal(edited.message_count, 6, 'every branch is kept');
      const sib = await rig.ok('GET', `${rig.sessionsPath(sid)}/messages/${edited.messages[2].id}/siblings`);
      assert.deepEqual(
        sib.messages.map((m: any) => m.blocks[0].text),
        ['beta two', 'gamma three'],
      );

      // Switch back to the first branch: it continues to its newest leaf, and survives a restart.
      const switched = await rig.ok('PUT', `${rig.sessionsPath(sid)}/active`, { message_id: beta.id });
      assert.deepEqual(texts(switched), ['alpha one', 'Alpha answer.', 'beta two', 'Beta answer.']);
      await rig.turn(sid, 'delta four');
      assert.deepEqual(lastSent(), [
        ['user', 'alpha one'],
        ['assistant', 'Alpha answer.'],
        ['user', 'beta two'],
        ['assistant', 'Beta answer.'],
        ['user', 'delta four'],
      ]);
      await rig.proc.stop();
      await rig.restart();
      const reopened = await rig.session(sid);
      assert.deepEqual(texts(reopened), ['alpha one', 'Alpha answer.', 'beta two', 'Beta answer.', 'delta four', 'Delta answer.']);
      assert.deepEqual(reopened.messages[2].siblings, { index: 1, count: 2 });
    });

    it('regenerate answers the same user message again, stored once, without the old reply in the request', async () => {
      const sid = await rig.newSession();
      await rig.turn(sid, 'alpha one');
      await rig.turn(sid, 'beta two');
      const first = await rig.session(sid);
      const oldReply = first.messages[3];
      assert.equal(oldReply.blocks[0].text, 'Beta answer.');
      const watch = await rig.watch();
      const regen = await rig.call('POST', `${rig.sessionsPath(sid)}/messages/${oldReply.id}/regenerate`, { model: 'p:m2' });
      assert.equal(regen.status, 202, JSON.stringify(regen.body));
      const started = await watch.wait(regen.body.turn_id, (f) => f.type === 'turn.started');
      assert.equal(started.model, 'p:m2');
      assert.equal(started.user_message_id, first.messages[2].id);
      const end = await watch.end(regen.body.turn_id);
      watch.close();
      assert.equal(end.type, 'turn.completed');
      const req = posts(relay).at(-1)!.json;
      assert.equal(req.model, 'm2', 'regenerate with another model');
      assert.deepEqual(rows(type, req), [
        ['user', 'alpha one'],
        ['assistant', 'Alpha answer.'],
        ['user', 'beta two'],
      ]);
      const after = await rig.session(sid);
      assert.equal(after.messages.length, 4);
      assert.equal(after.messages[3].id, end.message_id);
      assert.equal(after.messages[3].model, 'p:m2', 'the reply says which model answered');
      assert.deepEqual(after.messages[3].siblings, { index: 2, count: 2 });
      assert.equal(after.message_count, 5);
      const log = readFileSync(path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid, 'events.jsonl'), 'utf8');
      const userLines = log.split('\n').filter((l) => l.includes('"t":"message"') && l.includes('beta two'));
      assert.equal(userLines.length, 1, 'the user message is stored once');
      const unknown = await rig.call('POST', `${rig.sessionsPath(sid)}/messages/${oldReply.id}/regenerate`, { model: 'p:nope' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.field, 'model');
    });

    it('fork copies the path to a message into a new session that goes on by itself', async () => {
      const sid = await rig.newSession('Trip plans');
      await rig.turn(sid, 'alpha one');
      await rig.turn(sid, 'beta two');
      const source = await rig.session(sid);
      const forked = await rig.ok('POST', `${rig.sessionsPath(sid)}/fork`, { message_id: source.messages[1].id });
      assert.equal(forked.title, 'Trip plans (fork)');
      assert.equal(forked.message_count, 2);
      const copy = await rig.session(forked.id);
      assert.deepEqual(texts(copy), ['alpha one', 'Alpha answer.']);
      await rig.turn(forked.id, 'gamma three');
      assert.deepEqual(lastSent(), [
        ['user', 'alpha one'],
        ['assistant', 'Alpha answer.'],
        ['user', 'gamma three'],
      ]);
      assert.deepEqual(
        texts(await rig.session(sid)),
        ['alpha one', 'Alpha answer.', 'beta two', 'Beta answer.'],
        'the source is untouched',
      );
      const bad = await rig.call('POST', `${rig.sessionsPath(sid)}/fork`, { message_id: 'm-nope' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.field, 'message_id');
    });

    it('sends the profile system_prompt, then the workspace instructions, then the language line', async () => {
      await rig.setProfile({ system_prompt: 'You are Pip, a terse pirate.', language: 'en' });
      await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { instructions: 'This workspace is about sailing.' });
      const sid = await rig.newSession();
      await rig.turn(sid, 'alpha one');
      const system = systemText(type, posts(relay).at(-1)!.json);
      assert.ok(!system.includes('You are a helpful assistant.'), 'system_prompt replaces the base prompt');
      const order = ['You are Pip, a terse pirate.', 'This workspace is about sailing.', 'Always reply in English.'].map((t) =>
        system.indexOf(t),
      );
      assert.ok(order.every((i) => i >= 0) && order[0] < order[1] && order[1] < order[2], system);
      const tooLong = await rig.call('PUT', `/api/workspaces/${rig.workspaceId}`, { instructions: 'x'.repeat(32 * 1024 + 1) });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.error.field, 'instructions');
      const badProfile = await rig.call('PUT', `/api/profiles/${rig.profileId}`, { system_prompt: 'y'.repeat(40_000) });
      assert.equal(badProfile.body.error.field, 'system_prompt');
      await rig.setProfile({});
      await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { instructions: '' });
    });

    it('a session’s model and thinking overrides reach the request, survive a restart, and clear with null', async () => {
      const models = await rig.ok('GET', '/api/models');
      assert.deepEqual(
        models.models.map((m: any) => [m.id, m.provider, m.context_window, m.supports_thinking, m.enabled]),
        [
          ['p:m1', 'p', 200_000, false, true],
          ['p:m2', 'p', 64_000, true, true],
        ],
      );
      const sid = await rig.newSession();
      const patched = await rig.ok('PATCH', rig.sessionsPath(sid), { model: 'p:m2', thinking: { enabled: true, budget: 3000 } });
      assert.equal(patched.model_override, 'p:m2');
      assert.deepEqual(patched.thinking_override, { enabled: true, budget: 3000 });
      await rig.proc.stop();
      await rig.restart();
      await rig.turn(sid, 'alpha one');
      const body = posts(relay).at(-1)!.json;
      assert.equal(body.model, 'm2');
      if (type === 'native') assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 3000 });
      else if (type === 'compat') assert.equal(body.reasoning_effort, 'low');
      else assert.deepEqual(body.reasoning, { effort: 'low', summary: 'auto' });
      const session = await rig.session(sid);
      assert.equal(session.model, 'p:m2');
      assert.equal(session.messages[1].model, 'p:m2');

      const cleared = await rig.ok('PATCH', rig.sessionsPath(sid), { model: null, thinking: null });
      assert.equal(cleared.model_override, null);
      assert.equal(cleared.thinking_override, null);
      await rig.turn(sid, 'beta two');
      const plain = posts(relay).at(-1)!.json;
      assert.equal(plain.model, 'm1');
      assert.equal(plain.thinking ?? plain.reasoning ?? plain.reasoning_effort, undefined);

      for (const bad of [{ model: 'p:missing' }, { model: 'other:m1' }, { model: 'nocolon' }]) {
        const res = await rig.call('PATCH', rig.sessionsPath(sid), bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.field, 'model');
      }
      const badThinking = await rig.call('PATCH', rig.sessionsPath(sid), { thinking: { enabled: true, budget: 10 } });
      assert.equal(badThinking.body.error.field, 'thinking.budget');
      // Thinking for a model that cannot think (the profile's m1, or m1 named now) would be ignored: refused.
      for (const body of [{ thinking: { enabled: true, budget: 3000 } }, { model: 'p:m1', thinking: { enabled: true, budget: 3000 } }]) {
        const res = await rig.call('PATCH', rig.sessionsPath(sid), body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.field, 'thinking');
        assert.match(res.body.error.message, /p:m1 does not support thinking/);
      }
      const after = await rig.session(sid);
      assert.equal(after.model_override, null, 'a refused change applies nothing');
      assert.equal(after.thinking_override, null);
    });
  });
}
