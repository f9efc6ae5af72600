import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readLoginShellPath } from '../../backend/mcp/login-shell-path.js';
import { Aimock } from '../helpers/aimock.js';
import { tempDir } from '../helpers/backend-process.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { EVERYTHING } from './mcp-test-kit.js';

// A desktop start: the backend's own PATH is the bare system one; only the user's login shell adds
// the folder where the tool server's command lives (as Homebrew or nvm would).
const BARE_PATH = '/usr/bin:/bin';

function script(file: string, body: string): string {
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('-shell-env: tool servers use the login shell PATH', () => {
  let root: string;
  let brewBin: string;
  let shell: string;
  let mock: Aimock;
  let rig: ChatRig;

  before(async () => {
    root = tempDir('svc-shell-env-');
    brewBin = path.join(root, 'brew', 'bin');
    mkdirSync(brewBin, { recursive: true });
    script(path.join(brewBin, 'my-everything'), `exec "${process.execPath}" "${EVERYTHING}" stdio`);
    // A login shell that greets (profiles print things) and puts the folder first on PATH: `-ilc CMD`.
    shell = script(
      path.join(root, 'fake-login-shell'),
      `echo "Welcome back! PATH=/not/this/one"\nexport PATH="${brewBin}:$PATH"\nexec /bin/sh -c "$2"`,
    );
    mock = await Aimock.start([
      { match: { userMessage: 'sum through brew', hasToolResult: true }, response: { content: 'Done.' } },
      {
        match: { userMessage: 'sum through brew', hasToolResult: false },
        response: { toolCalls: [{ name: 'brew__get-sum', arguments: { a: 2, b: 3 }, id: 'c1' }] },
      },
    ]);
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }], {
      start: { args: ['-shell-env'], env: { SHELL: shell, PATH: BARE_PATH } },
    });
    await rig.ok('PUT', '/api/mcp/global', { mcpServers: { brew: { command: 'my-everything', approval: 'auto' } } });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a command only the login shell finds runs, and the log says which PATH is used', async () => {
    const { frames, end } = await rig.turn(await rig.newSession(), 'sum through brew', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const result = frames.find((f) => f.type === 'turn.tool_result');
    assert.deepEqual({ ok: result.ok, content: result.content }, { ok: true, content: 'The sum of 2 and 3 is 5.' });
    assert.ok(rig.proc.lines.some((l) => /tool servers use the login shell's PATH \(\d+ folders\)/.test(l.line)));
  });

  it('the login shell is asked once, its banner and a slow or broken shell do not matter', async () => {
    const found = await readLoginShellPath({ SHELL: shell, PATH: BARE_PATH });
    assert.equal(found.path, `${brewBin}:${BARE_PATH}`);
    const slow = script(path.join(root, 'slow-shell'), 'sleep 30');
    const started = Date.now();
    const timedOut = await readLoginShellPath({ SHELL: slow, PATH: BARE_PATH }, 500);
    assert.equal(timedOut.path, undefined);
    assert.match(timedOut.problem!, /did not answer within 0.5 s/);
    assert.ok(Date.now() - started < 5000);
    const broken = await readLoginShellPath({ SHELL: path.join(root, 'no-such-shell'), PATH: BARE_PATH });
    assert.match(broken.problem!, /could not run the login shell/);
  });
});

describe('without -shell-env', () => {
  it('the status says the command was not found and names the PATH it searched', async () => {
    const rig = await ChatRig.start([], { start: { env: { PATH: BARE_PATH } } });
    try {
      await rig.ok('PUT', '/api/mcp/global', { mcpServers: { brew: { command: 'my-everything' } } });
      // Prompts are listed from the running servers: asking starts them.
      await rig.call('GET', `/api/workspaces/${rig.workspaceId}/mcp/prompts`);
      const { servers } = await rig.ok('GET', '/api/mcp/status');
      assert.equal(servers[0].error, `command not found: my-everything (searched ${BARE_PATH})`);
    } finally {
      await rig.proc.stop();
      rig.proc.cleanup();
    }
  });
});
