import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { EVERYTHING, groupMembers, waitFor } from './mcp-test-kit.js';

// A server with a helper process (like `npx` → `node`, or a server's own workers) that neither reads
// stdin nor exits when the server does: a closed pipe stops nothing here, only the guard can.
const WITH_HELPER = {
  command: '/bin/sh',
  args: ['-c', `sleep 600 & "${process.execPath}" "${EVERYTHING}" stdio; sleep 600`],
  approval: 'auto',
};

/** The desktop app's one-file backend bundle (built by `npm run build`), where the SDK import is inlined. */
const BUNDLE = fileURLToPath(new URL('../../../dist-app/backend/service-backend.mjs', import.meta.url));

const FIXTURES = [
  { match: { userMessage: 'start it', hasToolResult: true }, response: { content: 'Started.' } },
  {
    match: { userMessage: 'start it', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__echo', arguments: { message: 'x' } }] },
  },
];

describe('no tool-server process outlives the backend', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  let mock: Aimock;
  before(async () => {
    mock = await Aimock.start(FIXTURES);
  });
  after(async () => {
    await mock?.stop();
  });

  async function backendWithRunningServer(entry?: string): Promise<{ rig: ChatRig; pgid: number }> {
    const rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }], {
      start: entry ? { entry } : undefined,
    });
    await rig.ok('PUT', '/api/mcp/global', { mcpServers: { ev: WITH_HELPER } });
    const { end, frames } = await rig.turn(await rig.newSession(), 'start it', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.equal(frames.find((f) => f.type === 'turn.tool_result').content, 'Echo: x');
    const status = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
    const pgid = status.servers.find((s: any) => s.name === 'ev').pid as number;
    // The guard shell, the server, its helper and the watcher.
    await waitFor('the server group to be complete', () => groupMembers(pgid).length >= 3);
    return { rig, pgid };
  }

  const cases: { signal: NodeJS.Signals; entry?: string }[] = [
    { signal: 'SIGTERM' },
    { signal: 'SIGKILL' },
    ...(existsSync(BUNDLE) ? [{ signal: 'SIGKILL' as const, entry: BUNDLE }] : []),
  ];
  for (const { signal, entry } of cases) {
    it(`after ${signal} of the backend${entry ? ' (the bundled backend of the desktop app)' : ''}`, async () => {
      const { rig, pgid } = await backendWithRunningServer(entry);
      try {
        await rig.proc.stop(signal);
        await waitFor(`every process of group ${pgid} to exit`, () => groupMembers(pgid).length === 0, 15_000);
      } finally {
        rig.proc.cleanup();
      }
    });
  }
});
