import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createService } from '../../backend/service.js';
import { listRoutes } from '../../backend/auth/route-policy.js';
import { ROUTE_ROLES } from '../../backend/api/route-roles.js';
import { Logger } from '../../backend/log/logger.js';
import { api, BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';

/** The routes the real app has, read from its router (so a new route cannot be forgotten). */
async function appRoutes(): Promise<string[]> {
  const service = await createService({ dataDir: path.join(tempDir(), 'data'), host: '127.0.0.1', logger: new Logger() });
  try {
    return listRoutes(service.app);
  } finally {
    await service.close();
  }
}

/** Every file of the data directory and its digest, minus what changes on its own (logs, search index). */
function dataState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = path.join(rel, name);
      if (/^(logs|search-index\.sqlite)/.test(r)) continue;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else
        out[r] = createHash('sha256')
          .update(readFileSync(path.join(dir, r)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

const skill = (name: string) => `---\nname: ${name}\ndescription: A test skill\n---\n\n# ${name}\n\nDo it.\n`;
const provider = (id: string) => ({
  id,
  name: `Provider ${id}`,
  type: 'compat',
  base_url: 'http://127.0.0.1:9/v1',
  api_key: `sk-${id}-0123456789`,
  models: [{ id: 'm1', context_window: 1000 }],
});

describe('device roles (DESIGN 16): owner and member', () => {
  let routes: string[] = [];
  let proc: BackendProcess;
  let owner = '';
  let member = { credential: '', device_id: '' };
  let ownerId = '';
  const ids: Record<string, string> = {};

  before(async () => {
    routes = await appRoutes();
    ({ proc, credential: owner } = await startPaired());
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await api(proc.url, method, url, { credential: owner, body });
      assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    ids.provider = (await call('POST', '/api/config/providers', provider('p1'))).id;
    await call('PUT', '/api/profiles/pr1', { model: 'p1:m1' });
    ids.workspace = (await call('POST', '/api/workspaces', { name: 'Shared' })).id;
    ids.session = (await call('POST', `/api/workspaces/${ids.workspace}/sessions`, { title: 'Hello' })).id;
    await call('POST', '/api/mcp/global/servers', { name: 'srv', server: { command: 'echo', args: ['hi'] } });
    await call('POST', `/api/workspaces/${ids.workspace}/mcp/servers`, { name: 'wsrv', server: { command: 'echo' } });
    await call('POST', '/api/skills', { name: 'sk', content: skill('sk') });
    ids.backup = (await call('POST', '/api/backups', { kind: 'manual' })).name;
    const invite = await call('POST', '/api/selfhost/devices/invite', { name: 'Kid tablet' });
    assert.equal(invite.role, 'member', 'an invite makes a member unless asked otherwise');
    const joined = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.code } });
    assert.equal(joined.status, 200);
    assert.equal(joined.body.role, 'member');
    member = joined.body;
    ownerId = (await call('GET', '/api/selfhost/devices')).devices.find((d: { current: boolean }) => d.current).id;
  });
  after(() => proc?.stop());

  it('the policy table names exactly the routes the router has', () => {
    const table = Object.keys(ROUTE_ROLES).sort();
    assert.deepEqual([...new Set(routes)].sort(), table, 'every route needs a role in backend/api/route-roles.ts, and no stale entries');
  });

  it('the device list shows roles and who invited whom', async () => {
    const list = await api(proc.url, 'GET', '/api/selfhost/devices', { credential: member.credential });
    assert.equal(list.status, 200, 'a member may read the list');
    const byId = Object.fromEntries(list.body.devices.map((d: { id: string }) => [d.id, d]));
    assert.deepEqual(
      [byId[ownerId].role, byId[ownerId].invited_by, byId[member.device_id].role, byId[member.device_id].invited_by],
      ['owner', null, 'member', ownerId],
    );
    assert.equal(byId[member.device_id].invited_by_name, 'First device');
  });

  it('a member walking every owner-only route gets 403 owner_required and nothing changes', async () => {
    // Warm up: the member's first request records when it was last seen.
    await api(proc.url, 'GET', '/api/workspaces', { credential: member.credential });
    const fill = (route: string) =>
      route
        .replace(/^(\S+ \/api\/config\/providers\/):id/, `$1${ids.provider}`)
        .replace(/^(\S+ \/api\/profiles\/):id/, '$1pr1')
        .replace(/^(\S+ \/api\/selfhost\/devices\/):id/, `$1${ownerId}`)
        .replace(/:id/, ids.workspace)
        .replace(
          /:name/,
          route.includes('/backups/') ? ids.backup : route.includes('/skills/') ? 'sk' : route.includes('/mcp/global') ? 'srv' : 'wsrv',
        );
    const bodies: Record<string, unknown> = {
      'POST /api/config/providers': provider('p2'),
      'PUT /api/config/providers/:id': provider('p1'),
      'PUT /api/config/defaults': { provider: 'p1', model: 'm1' },
      'POST /api/profiles': { id: 'pr2' },
      'PUT /api/profiles/:id': { model: 'p1:m1', system_prompt: 'changed' },
      'POST /api/skills': { name: 'sk2', content: skill('sk2') },
      'PUT /api/skills/:name': { content: skill('sk') + 'changed' },
      'PUT /api/mcp/global': { mcpServers: { evil: { command: 'rm' } } },
      'POST /api/mcp/global/servers': { name: 'evil', server: { command: 'rm' } },
      'PUT /api/mcp/global/servers/:name': { command: 'rm' },
      'PUT /api/workspaces/:id/mcp': { mcpServers: { evil: { command: 'rm' } } },
      'POST /api/workspaces/:id/mcp/servers': { name: 'evil', server: { command: 'rm' } },
      'PUT /api/workspaces/:id/mcp/servers/:name': { command: 'rm' },
      'POST /api/mcp/oauth/sign-out': { name: 'srv' },
      'POST /api/backups': { kind: 'manual' },
      'POST /api/selfhost/devices/invite': { role: 'owner' },
    };
    const ownerOnly = routes.filter((r) => ROUTE_ROLES[r] === 'owner');
    assert.ok(ownerOnly.length >= 25, `owner-only routes found: ${ownerOnly.length}`);
    const beforeState = dataState(proc.dataDir);
    for (const route of ownerOnly) {
      const [method, url] = fill(route).split(' ');
      const res = await api(proc.url, method, url, {
        credential: member.credential,
        body: bodies[route] ?? (method === 'GET' ? undefined : {}),
      });
      assert.equal(res.status, 403, `${route} → ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'owner_required', route);
      assert.match(res.body.error.message, /owner/);
    }
    assert.deepEqual(dataState(proc.dataDir), beforeState, 'no file of the data directory changed');
    const devices = await api(proc.url, 'GET', '/api/selfhost/devices', { credential: owner });
    assert.equal(devices.body.devices.length, 2, 'no device revoked, none added');
    assert.equal(proc.output().includes('device invite issued'), true, 'only the owner invite of the set-up was issued');
    assert.equal(proc.output().match(/device invite issued/g)?.length, 1);
  });

  it('a member chats, uses workspaces and reads settings with keys masked; it cannot escape the table by spelling', async () => {
    const m = (method: string, url: string, body?: unknown) => api(proc.url, method, url, { credential: member.credential, body });
    const providers = await m('GET', '/api/config/providers');
    assert.equal(providers.status, 200);
    assert.ok(!JSON.stringify(providers.body).includes('sk-p1-0123456789'), 'keys masked');
    assert.equal((await m('POST', `/api/workspaces/${ids.workspace}/sessions`, { title: 'Mine' })).status, 201);
    assert.equal((await m('GET', `/api/workspaces/${ids.workspace}/mcp`)).status, 200);
    assert.equal((await m('GET', '/api/skills/sk')).status, 200);
    for (const url of ['/API/Backups', '/api/backups/', `/api/skills/sk/`, '/api/skills/%73k']) {
      const res = await m(url.startsWith('/api/skills') ? 'DELETE' : 'POST', url, url.includes('ackups') ? { kind: 'manual' } : undefined);
      assert.equal(res.status, 403, `${url}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await api(proc.url, 'GET', '/api/skills/sk', { credential: owner })).status, 200, 'skill still there');
  });

  it('on the WebSocket a member cannot follow the service log; an owner can', async () => {
    const wsUrl = (credential: string) => `${proc.url.replace('http', 'ws')}/ws?service_credential=${credential}`;
    const ws = await openWs(wsUrl(member.credential));
    await ws.next((msg) => msg.type === 'hello');
    ws.socket.send(JSON.stringify({ type: 'subscribe', topics: ['log'] }));
    const refused = await ws.next((msg) => msg.type === 'error');
    assert.equal(refused.code, 'owner_required');
    ws.socket.send(JSON.stringify({ type: 'ping' }));
    await ws.next((msg) => msg.type === 'pong');
    await api(proc.url, 'POST', '/api/backups', { credential: owner, body: { kind: 'manual' } });
    const o = await openWs(wsUrl(owner));
    o.socket.send(JSON.stringify({ type: 'subscribe', topics: ['log'] }));
    o.socket.send(JSON.stringify({ type: 'ping' }));
    await o.next((msg) => msg.type === 'pong');
    await api(proc.url, 'POST', '/api/backups', { credential: owner, body: { kind: 'manual' } });
    await o.next((msg) => msg.type === 'log' && /backup written/.test(msg.line));
    assert.ok(!ws.messages.some((msg) => msg.type === 'log'), 'no log line reached the member');
    ws.socket.close();
    o.socket.close();
  });
});

describe('device roles: owner invites and the revocation cascade', () => {
  let proc: BackendProcess;
  after(() => proc?.stop());

  it('an owner invite makes an owner; revoking a device revokes those it invited, transitively', async () => {
    let owner: string;
    ({ proc, credential: owner } = await startPaired());
    const join = async (inviter: string, name: string, role?: string) => {
      const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential: inviter, body: { name, role } });
      assert.equal(invite.status, 200, JSON.stringify(invite.body));
      const joined = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code } });
      return joined.body as { credential: string; device_id: string; role: string };
    };
    const bad = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential: owner, body: { role: 'admin' } });
    assert.deepEqual([bad.status, bad.body.error.field], [400, 'role']);
    const laptop = await join(owner, 'Laptop', 'owner');
    assert.equal(laptop.role, 'owner');
    const phone = await join(laptop.credential, 'Phone');
    const tablet = await join(laptop.credential, 'Tablet', 'owner');
    const watch = await join(tablet.credential, 'Watch');
    const kept = await join(owner, 'Kept');
    const names = async () =>
      (await api(proc.url, 'GET', '/api/selfhost/devices', { credential: owner })).body.devices.map((d: { name: string }) => d.name);
    assert.deepEqual(await names(), ['First device', 'Laptop', 'Phone', 'Tablet', 'Watch', 'Kept']);

    const sockets = await Promise.all(
      [phone, watch, kept].map((d) => openWs(`${proc.url.replace('http', 'ws')}/ws?service_credential=${d.credential}`)),
    );
    const gone = await api(proc.url, 'DELETE', `/api/selfhost/devices/${laptop.device_id}`, { credential: owner });
    assert.equal(gone.status, 204);
    assert.deepEqual(await names(), ['First device', 'Kept']);
    for (const d of [laptop, phone, tablet, watch]) {
      assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential: d.credential })).status, 401);
    }
    assert.equal((await sockets[0].closed).code, 4001);
    assert.equal((await sockets[1].closed).code, 4001);
    assert.equal(sockets[2].socket.readyState, 1, 'a device outside the cascade stays connected');
    sockets[2].socket.close();

    // The claiming device goes with everything it let in: nothing left, pairing starts over.
    const me = (await api(proc.url, 'GET', '/api/selfhost/devices', { credential: owner })).body.devices[0].id;
    assert.equal((await api(proc.url, 'DELETE', `/api/selfhost/devices/${me}`, { credential: owner })).status, 204);
    assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential: kept.credential })).status, 401);
    assert.equal((await api(proc.url, 'GET', '/api/pairing/status')).body.bound, false);
  });
});
