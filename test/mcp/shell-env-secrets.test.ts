import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { inheritable } from '../../backend/mcp/child-env.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';

/** Variables a POSIX shell sets itself, and the two the backend adds to quiet shell frameworks. */
const SHELL_OWN = new Set(['PWD', 'OLDPWD', 'SHLVL', '_', 'DISABLE_AUTO_UPDATE', 'ZSH_TMUX_AUTOSTARTED']);

describe('-shell-env: the login shell gets the tool servers’ allow-listed environment only (DESIGN 16)', () => {
  const root = tempDir('svc-shell-secrets-');
  let proc: BackendProcess | undefined;
  after(async () => {
    await proc?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('no provider key, bootstrap secret or other backend variable reaches the shell', async () => {
    const dump = path.join(root, 'shell-env.txt');
    const shell = path.join(root, 'fake-login-shell');
    // Records the environment it was started with, then answers as a login shell would (`-ilc CMD`).
    writeFileSync(shell, `#!/bin/sh\nenv > "${dump}"\nexec /bin/sh -c "$2"\n`);
    chmodSync(shell, 0o755);
    proc = await BackendProcess.start({
      args: ['-shell-env'],
      env: {
        SHELL: shell,
        OPENAI_API_KEY: 'sk-openai-secret-123456',
        DEEP_SEEK_API_KEY: 'sk-deepseek-secret-654321',
        SERVICE_BOOTSTRAP_SECRET: 'bootstrap-secret-abcdef',
        MY_TOKEN: 'token-of-the-user-999',
        LANG: 'en_US.UTF-8',
      },
    });
    // Asked once, soon after start (off the start-up path).
    await proc.waitForLine(/tool servers use the login shell's PATH|warning: .*login shell/, 20_000);
    const text = readFileSync(dump, 'utf8');
    for (const secret of ['sk-openai-secret-123456', 'sk-deepseek-secret-654321', 'bootstrap-secret-abcdef', 'token-of-the-user-999']) {
      assert.ok(!text.includes(secret), `the login shell saw ${secret}`);
    }
    const names = text
      .split('\n')
      .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1])
      .filter((n): n is string => !!n);
    const outside = names.filter((n) => !inheritable(n) && !SHELL_OWN.has(n));
    assert.deepEqual(outside, [], 'only allow-listed variables');
    assert.ok(names.includes('PATH') && names.includes('HOME') && names.includes('LANG'), 'what a shell needs is there');
  });
});
