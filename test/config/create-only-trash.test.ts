import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { seededDataDir } from './config-helpers.js';

const skill = (name: string, description: string, body = 'Do the thing.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;
const FILESYSTEM = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'], env: { DEBUG: '1' } };

let proc: BackendProcess;
let credential: string;
let dataDir: string;
const call = (method: string, p: string, body?: unknown, headers?: Record<string, string>) =>
  api(proc.url, method, p, { credential, body, headers });
const globalFile = () => JSON.parse(readFileSync(path.join(dataDir, 'global_mcp_servers.json'), 'utf8'));
/** Every file under trash/, as {relative path: content}. */
function trash(): Record<string, string> {
  const root = path.join(dataDir, 'trash');
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(root, full)] = readFileSync(full, 'utf8');
    }
  };
  try {
    walk(root);
  } catch {
    return {};
  }
  return out;
}

before(async () => {
  dataDir = seededDataDir({
    'global_mcp_servers.json': JSON.stringify({ mcpServers: { filesystem: FILESYSTEM }, globalShortcut: 'Ctrl+Space' }),
    'skills/notes/SKILL.md': skill('notes', 'Hand-written notes skill', 'My own careful instructions.'),
  });
  ({ proc, credential } = await startPaired({ dataDir }));
});

after(async () => {
  await proc?.stop();
  proc?.cleanup();
});

describe('tool servers: creating never replaces, every replace or removal keeps the old entry', () => {
  test('POST …/servers with a name in use is a 409 already_exists naming it, and the entry is untouched', async () => {
    const res = await call('POST', '/api/mcp/global/servers', { name: 'filesystem', server: { command: 'evil' } });
    assert.deepEqual([res.status, res.body.error.code, res.body.error.field], [409, 'already_exists', 'name']);
    assert.match(res.body.error.message, /"filesystem" already exists/);
    assert.deepEqual(globalFile().mcpServers.filesystem, FILESYSTEM);
    assert.deepEqual(trash(), {});
  });

  test('PUT …/servers/:name with If-None-Match: * is create-only too', async () => {
    const res = await call('PUT', '/api/mcp/global/servers/filesystem', { command: 'evil' }, { 'If-None-Match': '*' });
    assert.deepEqual([res.status, res.body.error.code], [409, 'already_exists']);
    const made = await call(
      'PUT',
      '/api/mcp/global/servers/fresh',
      { type: 'http', url: 'https://fresh.example/mcp' },
      { 'If-None-Match': '*' },
    );
    assert.equal(made.status, 201);
    assert.deepEqual(globalFile().mcpServers.fresh, { type: 'http', url: 'https://fresh.example/mcp' });
  });

  test('POST creates a new server; a bad entry is a 400 naming its field', async () => {
    const bad = await call('POST', '/api/mcp/global/servers', { name: 'web', server: { type: 'http', url: 'ftp://x' } });
    assert.deepEqual([bad.status, bad.body.error.field], [400, 'mcpServers.web.url']);
    const res = await call('POST', '/api/mcp/global/servers', { name: 'web', server: { type: 'http', url: 'https://web.example/mcp' } });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.mcpServers.web, { type: 'http', url: 'https://web.example/mcp' });
    assert.equal(globalFile().globalShortcut, 'Ctrl+Space');
  });

  test('replacing one server keeps the previous entry in trash/', async () => {
    const res = await call('PUT', '/api/mcp/global/servers/filesystem', { command: 'node', args: ['fs.js'] });
    assert.equal(res.status, 200);
    assert.match(res.body.trashed_to, /^trash\/mcp-global-filesystem-/);
    const kept = JSON.parse(readFileSync(path.join(dataDir, res.body.trashed_to, 'mcp_servers.json'), 'utf8'));
    assert.deepEqual(kept, { mcpServers: { filesystem: FILESYSTEM } });
    assert.equal((await call('PUT', '/api/mcp/global/servers/nothing', { command: 'x' })).status, 404);
  });

  test('deleting a server, or dropping it in a whole-file PUT, keeps it in trash/', async () => {
    const del = await call('DELETE', '/api/mcp/global/servers/web');
    assert.equal(del.status, 200);
    assert.deepEqual(JSON.parse(readFileSync(path.join(dataDir, del.body.trashed_to, 'mcp_servers.json'), 'utf8')), {
      mcpServers: { web: { type: 'http', url: 'https://web.example/mcp' } },
    });
    assert.equal(globalFile().mcpServers.web, undefined);
    const before = new Set(Object.keys(trash()));
    const put = await call('PUT', '/api/mcp/global', { mcpServers: { fresh: { type: 'http', url: 'https://fresh.example/mcp' } } });
    assert.equal(put.status, 200);
    const added = Object.entries(trash()).filter(([k]) => !before.has(k));
    assert.equal(added.length, 1);
    assert.deepEqual(Object.keys(JSON.parse(added[0][1]).mcpServers), ['filesystem']);
  });

  test('workspace tool servers follow the same rules', async () => {
    const ws = await call('POST', '/api/workspaces', { name: 'Research' });
    const base = `/api/workspaces/${ws.body.id}/mcp`;
    assert.equal((await call('POST', `${base}/servers`, { name: 'a', server: { command: 'one' } })).status, 201);
    const dup = await call('POST', `${base}/servers`, { name: 'a', server: { command: 'two' } });
    assert.deepEqual([dup.status, dup.body.error.code], [409, 'already_exists']);
    const got = await call('GET', base);
    assert.deepEqual(got.body.mcpServers, { a: { command: 'one' } });
  });
});

describe('skills: creating never replaces, a replace keeps the previous SKILL.md', () => {
  const skillFile = () => readFileSync(path.join(dataDir, 'skills/notes/SKILL.md'), 'utf8');

  test('PUT with If-None-Match: * on an existing skill is a 409 and SKILL.md is untouched', async () => {
    const res = await call('PUT', '/api/skills/notes', { content: skill('notes', 'Template') }, { 'If-None-Match': '*' });
    assert.deepEqual([res.status, res.body.error.code, res.body.error.field], [409, 'already_exists', 'name']);
    assert.match(res.body.error.message, /"notes" already exists/);
    assert.match(skillFile(), /My own careful instructions/);
  });

  test('POST /api/skills creates, and refuses a name in use', async () => {
    const made = await call('POST', '/api/skills', { name: 'brief', content: skill('brief', 'Short answers') });
    assert.deepEqual([made.status, made.body.name], [201, 'brief']);
    const dup = await call('POST', '/api/skills', { name: 'notes', content: skill('notes', 'Template') });
    assert.deepEqual([dup.status, dup.body.error.code], [409, 'already_exists']);
    assert.match(skillFile(), /My own careful instructions/);
  });

  test('replacing a skill keeps the previous text in trash/', async () => {
    const res = await call('PUT', '/api/skills/notes', { content: skill('notes', 'Edited', 'New text.') });
    assert.equal(res.status, 200);
    assert.match(res.body.trashed_to, /^trash\/skill-notes-/);
    assert.match(readFileSync(path.join(dataDir, res.body.trashed_to, 'SKILL.md'), 'utf8'), /My own careful instructions/);
    assert.match(skillFile(), /New text\./);
  });
});

describe('public identity', () => {
  test('/api/version and /api/pairing/status carry the node_id; /api/version the swap listener URL', async () => {
    const pairing = JSON.parse(readFileSync(path.join(dataDir, 'selfhost/pairing.json'), 'utf8')) as { node_id: string };
    const version = await api(proc.url, 'GET', '/api/version');
    const status = await api(proc.url, 'GET', '/api/pairing/status');
    assert.equal(version.body.node_id, pairing.node_id);
    assert.equal(status.body.node_id, pairing.node_id);
    assert.equal(version.body.swap_url, proc.swapUrl);
  });
});
