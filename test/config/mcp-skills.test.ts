import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { EventClient, rawCall, seededDataDir } from './config-helpers.js';

const CLI_URL = 'http://127.0.0.1:7777/mcp';
/** As a desktop AI client exports it, including keys this service does not know. */
const DESKTOP_EXPORT = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      "env": {"DEBUG": "1"}
    },
    "remote-docs": {"type": "sse", "url": "https://docs.example.com/sse", "headers": {"X-Team": "a"}},
    "cursor-style": {"url": "http://localhost:3001/mcp", "disabled": true, "autoApprove": ["search"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`;
const skill = (name: string, description: string, body = 'Do the thing.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;

let proc: BackendProcess;
let credential: string;
let events: EventClient;
let dataDir: string;
const call = (method: string, p: string, body?: unknown) => api(proc.url, method, p, { credential, body });

before(async () => {
  dataDir = seededDataDir({
    'global_mcp_servers.json': DESKTOP_EXPORT,
    'skills/hand-made/SKILL.md': skill('hand-made', 'Written by hand'),
  });
  ({ proc, credential } = await startPaired({ dataDir, args: ['-mcp', CLI_URL] }));
  events = await EventClient.open(proc.url, credential);
});

after(async () => {
  events?.close();
  await proc?.stop();
  proc?.cleanup();
});

describe('tool servers', () => {
  test('a desktop client export loads unchanged, plus the read-only cli server', async () => {
    const res = await call('GET', '/api/mcp/global');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.mcpServers, JSON.parse(DESKTOP_EXPORT).mcpServers);
    assert.deepEqual(res.body.readonly, { cli: { type: 'http', url: CLI_URL, source: 'cli' } });
    assert.deepEqual(res.body.errors, []);
  });

  test("global PUT replaces the servers and keeps the file's other keys", async () => {
    const servers = { ...JSON.parse(DESKTOP_EXPORT).mcpServers, search: { type: 'http', url: 'https://search.example/mcp' } };
    delete servers['cursor-style'];
    const from = events.mark;
    const res = await call('PUT', '/api/mcp/global', { mcpServers: servers });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await events.changed('mcp', 'global', from);
    const file = JSON.parse(readFileSync(path.join(dataDir, 'global_mcp_servers.json'), 'utf8'));
    assert.deepEqual(file, { mcpServers: servers, globalShortcut: 'Ctrl+Space' });
    assert.ok(!('cli' in file.mcpServers));
  });

  test('per-workspace tool servers', async () => {
    const { id } = (await call('POST', '/api/workspaces', { name: 'Tools' })).body;
    assert.deepEqual((await call('GET', `/api/workspaces/${id}/mcp`)).body, { mcpServers: {}, readonly: {}, errors: [] });
    const from = events.mark;
    const body = { mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] } } };
    const put = await call('PUT', `/api/workspaces/${id}/mcp`, body);
    assert.deepEqual([put.status, put.body.mcpServers], [200, body.mcpServers]);
    await events.changed('mcp', id, from);
    assert.deepEqual(JSON.parse(readFileSync(path.join(dataDir, 'workspaces', id, 'mcp_config.json'), 'utf8')), body);
    assert.equal((await call('GET', '/api/workspaces/ws-000000000000/mcp')).status, 404);
    assert.equal((await rawCall(proc, credential, 'PUT', '/api/workspaces/%2E%2E/mcp', body)).status, 400);
  });

  test('each server is validated, naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ mcpServers: { a: { args: ['x'] } } }, 'mcpServers.a.command', /command is required for a stdio server/],
      [{ mcpServers: { a: { command: '' } } }, 'mcpServers.a.command', /command is required/],
      [{ mcpServers: { a: { command: 'x', args: 'y' } } }, 'mcpServers.a.args', /list of strings/],
      [{ mcpServers: { a: { command: 'x', env: { K: 1 } } } }, 'mcpServers.a.env.K', /strings/],
      [{ mcpServers: { a: { type: 'http' } } }, 'mcpServers.a.url', /url is required/],
      [{ mcpServers: { a: { type: 'sse', url: '/relative' } } }, 'mcpServers.a.url', /absolute http\(s\) URL/],
      [{ mcpServers: { a: { url: 'ftp://host/x' } } }, 'mcpServers.a.url', /absolute http\(s\) URL/],
      [{ mcpServers: { a: { type: 'ws', url: 'http://h' } } }, 'mcpServers.a.type', /stdio, http or sse/],
      [{ mcpServers: { a: 'npx' } }, 'mcpServers.a', /must be an object/],
      [{ mcpServers: [] }, 'mcpServers', /object of named servers/],
      [{ mcpServers: { cli: { url: 'http://x' } } }, 'mcpServers.cli', /read-only/],
    ];
    for (const [body, field, message] of cases) {
      const res = await call('PUT', '/api/mcp/global', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.field, field);
      assert.match(res.body.error.message, message);
    }
    assert.ok(JSON.parse(readFileSync(path.join(dataDir, 'global_mcp_servers.json'), 'utf8')).mcpServers.search);
  });

  test('a tool-server file with broken JSON is reported and never overwritten', async () => {
    const file = path.join(dataDir, 'global_mcp_servers.json');
    const good = readFileSync(file, 'utf8');
    const broken = '{"mcpServers": {"a": ';
    writeFileSync(file, broken);
    assert.equal((await call('GET', '/api/mcp/global')).body.errors.length, 1);
    const res = await call('PUT', '/api/mcp/global', { mcpServers: {} });
    assert.deepEqual([res.status, res.body.error.code], [409, 'config_invalid']);
    assert.equal(readFileSync(file, 'utf8'), broken);
    writeFileSync(file, good);
  });
});

describe('skills', () => {
  test('list, get, create, replace, delete', async () => {
    assert.deepEqual((await call('GET', '/api/skills')).body.skills, [{ name: 'hand-made', description: 'Written by hand', errors: [] }]);
    let from = events.mark;
    const created = await call('PUT', '/api/skills/summarize', { content: skill('summarize', 'Summarize a document') });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await events.changed('skills', 'summarize', from);
    assert.equal(readFileSync(path.join(dataDir, 'skills/summarize/SKILL.md'), 'utf8'), skill('summarize', 'Summarize a document'));
    const replaced = await call('PUT', '/api/skills/summarize', { content: skill('summarize', 'Shorter summaries', 'Be brief.') });
    assert.deepEqual([replaced.status, replaced.body.description], [200, 'Shorter summaries']);
    const got = (await call('GET', '/api/skills/summarize')).body;
    assert.match(got.content, /Be brief\./);
    assert.deepEqual(
      (await call('GET', '/api/skills')).body.skills.map((s: any) => s.name),
      ['hand-made', 'summarize'],
    );
    from = events.mark;
    assert.equal((await call('DELETE', '/api/skills/summarize')).status, 204);
    await events.changed('skills', 'summarize', from);
    assert.ok(!existsSync(path.join(dataDir, 'skills/summarize')));
    assert.ok(readdirSync(path.join(dataDir, 'trash')).some((n) => n.startsWith('skill-summarize-')));
    assert.equal((await call('GET', '/api/skills/summarize')).status, 404);
    assert.equal((await call('DELETE', '/api/skills/summarize')).status, 404);
  });

  test('front matter is required and must match the name', async () => {
    const cases: [unknown, RegExp][] = [
      [{ content: '# no front matter' }, /front matter/],
      [{ content: '---\nname: good\n---\nbody' }, /description is required/],
      [{ content: '---\ndescription: d\n---\nbody' }, /name is required/],
      [{ content: skill('other', 'd') }, /must equal the skill name good/],
      [{ content: '---\nname: [good\n---\n' }, /not valid YAML/],
      [{ content: 5 }, /content must be/],
    ];
    for (const [body, message] of cases) {
      const res = await call('PUT', '/api/skills/good', body);
      assert.deepEqual([res.status, res.body.error.field], [400, 'content'], JSON.stringify(body));
      assert.match(res.body.error.message, message);
    }
    assert.ok(!existsSync(path.join(dataDir, 'skills/good')));
  });

  test('names that could escape the skills folder are refused', async () => {
    const content = { content: skill('x', 'd') };
    for (const bad of ['..', '%2E%2E', '..%2F..%2Fconfig.yaml', 'a%2Fb', 'a%5Cb', '%2Fetc%2Fpasswd', 'C:%5Cwin', 'x%00y']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await rawCall(proc, credential, method, `/api/skills/${bad}`, method === 'PUT' ? content : undefined);
        assert.deepEqual([res.status, res.body?.error?.field], [400, 'name'], `${method} ${bad}`);
      }
    }
    const nul = await rawCall(proc, credential, 'GET', '/api/skills/x%00y');
    assert.match(nul.body.error.message, /NUL/);
    assert.ok(readFileSync(path.join(dataDir, 'config.yaml'), 'utf8').includes('providers'));
  });
});
