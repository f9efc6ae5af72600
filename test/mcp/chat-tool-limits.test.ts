import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { everythingStdio, isAlive, skillDoc, waitFor } from './mcp-test-kit.js';

const SKILL_BODY = 'Always answer in three short lines, like a haiku. MARKER-7f3a';

const FIXTURES: AimockFixture[] = [
  // The summary request of a compaction.
  { match: { userMessage: 'Summarize this conversation' }, response: { content: 'SUMMARY: the user loaded a skill and chatted.' } },
  // A model that never stops calling tools.
  { match: { userMessage: 'loop forever' }, response: { toolCalls: [{ name: 'ev__get-sum', arguments: { a: 1, b: 1 } }] } },
  { match: { userMessage: 'slow please', hasToolResult: true }, response: { content: 'The slow tool did not finish.' } },
  {
    match: { userMessage: 'slow please', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__trigger-long-running-operation', arguments: { duration: 20, steps: 20 }, id: 'call_slow' }] },
  },
  { match: { userMessage: 'crash it', hasToolResult: true }, response: { content: 'The server crashed.' } },
  {
    match: { userMessage: 'crash it', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__trigger-long-running-operation', arguments: { duration: 4, steps: 4 }, id: 'call_crash' }] },
  },
  { match: { userMessage: 'add after crash', hasToolResult: true }, response: { content: 'Back.' } },
  {
    match: { userMessage: 'add after crash', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__get-sum', arguments: { a: 3, b: 4 } }] },
  },
  { match: { userMessage: 'write haiku', hasToolResult: true }, response: { content: 'Skill loaded.', usage: { prompt_tokens: 9000 } } },
  {
    match: { userMessage: 'write haiku', hasToolResult: false },
    response: {
      toolCalls: [{ name: 'activate_skill', arguments: { name: 'haiku-style' }, id: 'call_skill' }],
      usage: { prompt_tokens: 9000 },
    },
  },
  { match: { userMessage: 'show the environment', hasToolResult: true }, response: { content: 'Shown.' } },
  {
    match: { userMessage: 'show the environment', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__get-env', arguments: {} }] },
  },
  { match: { userMessage: 'filler' }, response: { content: 'ok', usage: { prompt_tokens: 9000 } } },
];

describe('tool limits and skills in chat (compat)', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start(FIXTURES);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start(
      [{ id: 'prov', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1', { context_window: 16_000 })] }],
      {
        profile: { tools: { max_steps: 3 }, compression: { enabled: true, threshold_percent: 50, cooldown_seconds: 0 } },
        // As inside the desktop app: the backend's own environment has ELECTRON_RUN_AS_NODE.
        // PROV_API_KEY is the provider's key by environment override: it must never reach a tool server.
        start: { env: { SERVICE_TOOL_TIMEOUT_MS: '2000', ELECTRON_RUN_AS_NODE: '1', PROV_API_KEY: 'sk-env-key-never-for-tools' } },
      },
    );
    await rig.ok('PUT', '/api/mcp/global', { mcpServers: { ev: everythingStdio({ approval: 'auto', env: { FROM_ENTRY: 'yes' } }) } });
    await rig.ok('PUT', '/api/skills/haiku-style', {
      content: skillDoc('haiku-style', 'Answer as a haiku. Use when the user asks for a haiku.', SKILL_BODY),
    });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  it('a stdio server gets only the allow-listed environment plus its entry env: no key, no SERVICE_*', async () => {
    const { frames } = await rig.turn(await rig.newSession(), 'show the environment', 60_000);
    const env = JSON.parse(frames.find((f) => f.type === 'turn.tool_result').content);
    assert.equal(env.FROM_ENTRY, 'yes');
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.PROV_API_KEY, undefined);
    assert.equal(env.ELECTRON_RUN_AS_NODE, undefined);
    assert.deepEqual(
      Object.keys(env).filter((k) => k.startsWith('SERVICE_')),
      [],
    );
    // What the POSIX guard shell sets for itself (PWD, SHLVL, _) is all that may come on top.
    const allowed = /^(PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|TZ|TMPDIR|TEMP|TMP|LC_.+|XDG_.+|FROM_ENTRY|PWD|OLDPWD|SHLVL|_)$/;
    assert.deepEqual(
      Object.keys(env).filter((k) => !allowed.test(k)),
      [],
    );
    assert.doesNotMatch(JSON.stringify(env), /sk-env-key-never-for-tools|SECRET/);
  });

  it('the step limit ends a tool loop with stop_reason max_steps', async () => {
    const { frames, end } = await rig.turn(await rig.newSession(), 'loop forever', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.equal(end.stop_reason, 'max_steps');
    const results = frames.filter((f) => f.type === 'turn.tool_result');
    assert.equal(results.length, 3);
    assert.ok(results.every((r) => r.ok && r.content === 'The sum of 1 and 1 is 2.'));
  });

  it('a call past the per-call timeout is a tool_error result and the turn goes on', async () => {
    const { frames, end } = await rig.turn(await rig.newSession(), 'slow please', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const result = frames.find((f) => f.type === 'turn.tool_result');
    assert.deepEqual({ ok: result.ok, content: result.content }, { ok: false, content: 'The tool call timed out after 2 s.' });
    assert.match(JSON.stringify(relay.last('/chat/completions').json.messages), /timed out after 2 s/);
  });

  it('cancelling the turn during a call stops waiting for it at once; the server stays usable', async () => {
    const sid = await rig.newSession();
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.send(sid, 'slow please');
      await watch.wait(turn_id, (f) => f.type === 'turn.tool_call', 60_000);
      await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/cancel`);
      const end = await watch.end(turn_id, 30_000);
      assert.equal(end.type, 'turn.failed', JSON.stringify(end));
      assert.equal(end.error.code, 'cancelled');
      // Had the call ignored the cancel, it would have run into its 2 s timeout instead.
      const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
      if (result) assert.equal(result.content, 'The tool call was cancelled.');
    } finally {
      watch.close();
    }
    const status = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
    assert.equal(status.servers.find((s: any) => s.name === 'ev').state, 'ready');
  });

  it('a server killed mid-call ends that call with an error; the next call restarts it', async () => {
    const sid = await rig.newSession();
    const watch = await rig.watch();
    let pid = 0;
    try {
      const { turn_id } = await rig.send(sid, 'crash it');
      await watch.wait(turn_id, (f) => f.type === 'turn.tool_call', 60_000);
      const status = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
      pid = status.servers.find((s: any) => s.name === 'ev').pid;
      assert.ok(pid > 0);
      process.kill(-pid, 'SIGKILL');
      const end = await watch.end(turn_id, 30_000);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
      assert.equal(result.ok, false);
      assert.match(result.content, /^The tool server ev stopped during the call: the server was stopped by SIGKILL/);
    } finally {
      watch.close();
    }
    const failed = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
    assert.equal(failed.servers.find((s: any) => s.name === 'ev').state, 'failed');
    const next = await rig.turn(await rig.newSession(), 'add after crash', 60_000);
    assert.equal(next.frames.find((f) => f.type === 'turn.tool_result').content, 'The sum of 3 and 4 is 7.');
    const ready = (await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`)).servers.find((s: any) => s.name === 'ev');
    assert.equal(ready.state, 'ready');
    assert.notEqual(ready.pid, pid);
    await waitFor('the killed server to be gone', () => !isAlive(pid));
  });

  it('a skill loaded through activate_skill is still in the request after a compaction', async () => {
    const sid = await rig.newSession();
    const first = await rig.turn(sid, 'write haiku', 60_000);
    const call = first.frames.find((f) => f.type === 'turn.tool_call');
    assert.deepEqual(
      { server: call.server, tool: call.tool, needs_approval: call.needs_approval },
      {
        server: 'skills',
        tool: 'activate_skill',
        needs_approval: false,
      },
    );
    assert.match(first.frames.find((f) => f.type === 'turn.tool_result').content, /MARKER-7f3a/);
    const catalog = relay.requests.find((r) => JSON.stringify(r.json ?? {}).includes('- haiku-style: Answer as a haiku.'));
    assert.ok(catalog, 'the skill catalog is in the system prompt');
    await rig.turn(sid, 'filler one', 60_000);
    const third = await rig.turn(sid, 'filler two', 60_000);
    assert.ok(
      third.frames.some((f) => f.type === 'turn.compacted'),
      `compacted: ${JSON.stringify(third.frames.map((f) => f.type))}`,
    );
    const sent = JSON.stringify(relay.last('/chat/completions').json.messages);
    assert.match(sent, /SUMMARY: the user loaded a skill/);
    assert.match(sent, /MARKER-7f3a/, 'the skill body survived the compaction');
    assert.doesNotMatch(sent, /"content":"write haiku"/, 'the original user message was summarised away');
  });
});
