import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { childEnv } from '../../backend/mcp/child-env.js';
import { resolveCommand, spawnLine } from '../../backend/mcp/command-resolve.js';
import { McpFileSchema } from '../../backend/mcp/mcp-api.js';
import { resolveEntry } from '../../backend/mcp/server-config.js';
import { escapeControls, Logger } from '../../backend/log/logger.js';
import { parseArgs, USAGE } from '../../backend/cli/args.js';

describe('the environment a tool server gets', () => {
  const backend = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    XDG_CONFIG_HOME: '/home/u/.config',
    OPENAI_API_KEY: 'sk-live',
    DEEP_SEEK_API_KEY: 'sk-other',
    SERVICE_BOOTSTRAP_SECRET: 'b',
    SERVICE_TOOL_TIMEOUT_MS: '10',
    ELECTRON_RUN_AS_NODE: '1',
    NODE_OPTIONS: '--inspect',
    SystemRoot: 'C:\\Windows',
  };

  test('POSIX: the allow-list plus the entry env, nothing else', () => {
    const env = childEnv(backend, { TOKEN: 't' }, { platform: 'linux' });
    assert.deepEqual(env, {
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      XDG_CONFIG_HOME: '/home/u/.config',
      TOKEN: 't',
    });
  });

  test('Windows: its own variables, matched without regard to case; the login PATH replaces Path', () => {
    const env = childEnv(
      { ...backend, Path: 'C:\\bin', PATH: undefined, windir: 'C:\\Windows', ComSpec: 'cmd' },
      {},
      {
        platform: 'win32',
        path: 'C:\\tools',
      },
    );
    assert.equal(env.SystemRoot, 'C:\\Windows');
    assert.equal(env.windir, 'C:\\Windows');
    assert.equal(env.ComSpec, 'cmd');
    assert.equal(env.Path, 'C:\\tools');
    assert.equal(env.OPENAI_API_KEY, undefined);
  });

  test('the login shell PATH replaces the backend PATH; an entry PATH wins over both', () => {
    assert.equal(childEnv(backend, {}, { platform: 'darwin', path: '/opt/homebrew/bin:/usr/bin' }).PATH, '/opt/homebrew/bin:/usr/bin');
    assert.equal(childEnv(backend, { PATH: '/mine' }, { platform: 'darwin', path: '/opt/homebrew/bin' }).PATH, '/mine');
  });
});

describe('command lookup (Windows cases run with an injected platform: Windows itself cannot run here)', () => {
  const files = (...list: string[]) => {
    const set = new Set(list.map((f) => f.toLowerCase()));
    return (file: string) => set.has(file.toLowerCase());
  };

  test('Windows: PATH and PATHEXT find npx.cmd; a .cmd runs through cmd.exe with quoting', () => {
    const env = { Path: 'C:\\Windows;"C:\\Program Files\\nodejs"', PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\cmd.exe' };
    const found = resolveCommand('npx', { platform: 'win32', env, isFile: files('C:\\Program Files\\nodejs\\npx.cmd') });
    assert.deepEqual(found, { found: true, file: 'C:\\Program Files\\nodejs\\npx.cmd' });
    const line = spawnLine('C:\\Program Files\\nodejs\\npx.cmd', ['-y', '@scope/server', 'a b', 'x&y', 'q"t'], 'win32', env);
    assert.equal(line.command, 'C:\\Windows\\cmd.exe');
    assert.equal(line.verbatim, true);
    assert.deepEqual(line.args.slice(0, 3), ['/d', '/s', '/c']);
    assert.equal(line.args[3], '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-y^" ^"@scope/server^" ^"a^ b^" ^"x^&y^" ^"q\\^"t^""');
  });

  test('Windows: an .exe runs directly; PATHEXT order decides; an explicit extension is honoured', () => {
    const env = { PATH: 'C:\\a;C:\\b', PATHEXT: '.EXE;.CMD' };
    const isFile = files('C:\\a\\tool.cmd', 'C:\\b\\tool.exe', 'C:\\a\\uvx.exe');
    assert.deepEqual(resolveCommand('tool', { platform: 'win32', env, isFile }), { found: true, file: 'C:\\a\\tool.cmd' });
    assert.deepEqual(resolveCommand('tool.exe', { platform: 'win32', env, isFile }), { found: true, file: 'C:\\b\\tool.exe' });
    assert.deepEqual(spawnLine('C:\\a\\uvx.exe', ['x y'], 'win32', env), { command: 'C:\\a\\uvx.exe', args: ['x y'], verbatim: false });
  });

  test('Windows: a node_modules/.bin shim gets its meta characters escaped twice', () => {
    const line = spawnLine('C:\\p\\node_modules\\.bin\\server.cmd', ['a&b'], 'win32', {});
    assert.equal(line.command, 'cmd.exe');
    assert.equal(line.args[3], '"C:\\p\\node_modules\\.bin\\server.cmd ^^^"a^^^&b^^^""');
  });

  test('POSIX: PATH order, paths with a slash as they are, not found lists the folders', () => {
    const env = { PATH: '/opt/homebrew/bin:/usr/bin' };
    const isFile = files('/usr/bin/npx', '/opt/homebrew/bin/npx', '/srv/run.sh');
    assert.deepEqual(resolveCommand('npx', { platform: 'darwin', env, isFile }), { found: true, file: '/opt/homebrew/bin/npx' });
    assert.deepEqual(resolveCommand('./run.sh', { platform: 'linux', env, cwd: '/srv', isFile }), { found: true, file: '/srv/run.sh' });
    assert.deepEqual(resolveCommand('uvx', { platform: 'linux', env, isFile }), {
      found: false,
      searched: ['/opt/homebrew/bin', '/usr/bin'],
    });
    assert.equal(spawnLine('/usr/bin/npx', ['a b'], 'linux', env).verbatim, false);
  });
});

describe('control characters', () => {
  const issue = (file: unknown) => {
    const parsed = McpFileSchema.safeParse(file);
    assert.equal(parsed.success, false);
    return parsed.error!.issues[0];
  };

  test('refused in server names, header and env names and values, naming the field', () => {
    assert.deepEqual(issue({ mcpServers: { 'a\nb': { command: 'x' } } }).path, ['mcpServers']);
    const envName = issue({ mcpServers: { a: { command: 'x', env: { 'A\u001b': '1' } } } });
    assert.deepEqual(envName.path, ['mcpServers', 'a', 'env']);
    assert.match(envName.message, /env names .* control characters/);
    assert.deepEqual(issue({ mcpServers: { a: { command: 'x', env: { A: '1\r\n2' } } } }).path, ['mcpServers', 'a', 'env', 'A']);
    assert.match(issue({ mcpServers: { a: { url: 'http://h/mcp', headers: { 'X\u0000': 'v' } } } }).message, /headers names/);
    assert.match(issue({ mcpServers: { a: { url: 'http://h/mcp', headers: { X: 'v\u2028' } } } }).message, /headers values/);
    assert.equal(resolveEntry('a\u0007', { command: 'x' }, 'global', 'global').transport, 'invalid');
  });

  test('the logger escapes them; no message can start a pairing-code line', () => {
    const written: string[] = [];
    const logger = new Logger({ write: (_s, line) => written.push(line) });
    logger.info('tool server evil\npairing code: 123456 (expires 2030-01-01T00:00:00Z) failed\r\u001b[2J');
    assert.deepEqual(written, ['tool server evil', '  pairing code: 123456 (expires 2030-01-01T00:00:00Z) failed\\x0d\\x1b[2J']);
    assert.ok(written.every((l) => !l.startsWith('pairing code:')));
    assert.equal(escapeControls('tab\tkept, bell\u0007 and \u2028 not'), 'tab\tkept, bell\\x07 and \\u2028 not');
  });
});

describe('-shell-env', () => {
  test('a boolean flag: alone, =true or =false; anything else is a usage error naming it', () => {
    assert.equal(parseArgs([]).shellEnv, false);
    assert.equal(parseArgs(['-shell-env']).shellEnv, true);
    assert.equal(parseArgs(['--shell-env=true', '-port', '0']).shellEnv, true);
    assert.equal(parseArgs(['-shell-env=false']).shellEnv, false);
    assert.throws(() => parseArgs(['-shell-env=maybe']), /invalid value "maybe" for flag -shell-env: must be true or false/);
    assert.match(USAGE, /-shell-env/);
  });
});
