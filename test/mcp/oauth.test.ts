import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { startOAuthMcp, type OAuthMcp } from './fixtures/oauth-mcp-server.js';
import { waitFor } from './mcp-test-kit.js';

/**
 * DESIGN 9: a remote server that requires OAuth, against an authorization server and a protected
 * MCP endpoint built with the SDK's own server-side auth helpers.
 */
describe('OAuth sign-in for a remote tool server', () => {
  let remote: OAuthMcp;
  let mock: Aimock;
  let rig: ChatRig;
  const responses: string[] = [];
  /** The authorization code and state of the browser's return: never in a log line (DESIGN 16). */
  const callbackSecrets: string[] = [];
  const tokensFile = () => path.join(rig.proc.dataDir, 'selfhost', 'mcp_tokens.json');
  /** Every API answer the test reads is kept, to prove no token ever appears in one. */
  const get = async (p: string, body?: unknown) => {
    const res = await rig.call(body === undefined ? 'GET' : 'POST', p, body);
    responses.push(JSON.stringify(res.body));
    return res;
  };
  const status = async () => (await get('/api/mcp/status')).body.servers.find((s: any) => s.name === 'secure');

  before(async () => {
    remote = await startOAuthMcp();
    mock = await Aimock.start([
      { match: { userMessage: 'who am i', hasToolResult: true }, response: { content: 'You are signed in.' } },
      { match: { userMessage: 'who am i', hasToolResult: false }, response: { toolCalls: [{ name: 'secure__whoami', arguments: {} }] } },
    ]);
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }]);
    await rig.ok('PUT', '/api/mcp/global', { mcpServers: { secure: { type: 'http', url: remote.url, approval: 'auto' } } });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
    await remote?.stop();
  });

  it('the status asks for sign-in with an authorize_url; the browser round trip signs in and the server connects', async () => {
    const checked = (await get('/api/mcp/status/check', { name: 'secure' })).body;
    assert.equal(checked.state, 'failed');
    assert.equal(checked.auth_required, true);
    assert.equal(checked.signed_in, false);
    assert.match(checked.error, /^needs sign-in/);
    const authorize = new URL(checked.authorize_url);
    assert.equal(authorize.origin + authorize.pathname, new URL('/authorize', remote.url).toString());
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256', 'PKCE');
    assert.ok(authorize.searchParams.get('client_id'), 'registered dynamically');
    assert.equal(remote.provider.clients.size, 1);

    // What the browser does: the authorization server redirects back to the service's callback.
    const approved = await fetch(checked.authorize_url, { redirect: 'manual' });
    assert.equal(approved.status, 302);
    const callback = new URL(approved.headers.get('location')!);
    assert.equal(callback.origin + callback.pathname, `${rig.proc.url}/api/mcp/oauth/callback`);
    callbackSecrets.push(callback.searchParams.get('code')!, callback.searchParams.get('state')!);
    const landed = await fetch(callback);
    const page = await landed.text();
    assert.equal(landed.status, 200, page);
    assert.match(page, /Signed in to http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.doesNotMatch(page, new RegExp(callback.searchParams.get('code')!));
    assert.deepEqual(remote.provider.grants, ['authorization_code']);

    const ready = await waitFor('the server to connect after sign-in', async () => {
      const s = await status();
      return s.state === 'ready' && s;
    });
    assert.deepEqual(
      {
        auth_required: ready.auth_required,
        authorize_url: ready.authorize_url,
        signed_in: ready.signed_in,
        tools: ready.tools.map((t: any) => t.name),
      },
      { auth_required: false, authorize_url: null, signed_in: true, tools: ['whoami'] },
    );
    const replay = await fetch(callback);
    assert.equal(replay.status, 400, 'a callback link works once');
  });

  it('tokens are stored 0600 and refreshed when the access token expires; a tool call goes on working', async () => {
    const stored = readFileSync(tokensFile(), 'utf8');
    assert.equal(statSync(tokensFile()).mode & 0o777, 0o600);
    assert.ok(remote.provider.issued.every((t) => stored.includes(t)));
    const first = await rig.turn(await rig.newSession(), 'who am i', 60_000);
    const result = first.frames.find((f) => f.type === 'turn.tool_result');
    assert.deepEqual(
      { ok: result.ok, content: result.content },
      { ok: true, content: `signed in as ${[...remote.provider.clients.keys()][0]}` },
    );

    // The tokens the service holds expire; the refreshed ones keep the server's usual lifetime (a
    // one-second lifetime expired again before the retried call on a busy machine).
    for (const token of remote.provider.access.values()) token.expires = Date.now() - 1;
    const second = await rig.turn(await rig.newSession(), 'who am i', 60_000);
    const again = second.frames.find((f) => f.type === 'turn.tool_result');
    assert.equal(again.ok, true, again.content);
    assert.deepEqual(remote.provider.grants, ['authorization_code', 'refresh_token']);
    assert.ok(
      remote.provider.issued.slice(-2).every((t) => readFileSync(tokensFile(), 'utf8').includes(t)),
      'the refreshed tokens are stored',
    );
  });

  it('no token appears in any API answer or log line', async () => {
    await get('/api/mcp/global');
    await get(`/api/mcp/status?workspace=${rig.workspaceId}`);
    responses.push(JSON.stringify((await rig.call('GET', '/api/logs')).body));
    const everything = [...responses, ...rig.proc.lines.map((l) => l.line)].join('\n');
    for (const token of remote.provider.issued) assert.ok(!everything.includes(token), 'a token leaked');
    const logged = rig.proc.lines.map((l) => l.line).join('\n');
    assert.equal(callbackSecrets.length, 2);
    for (const secret of callbackSecrets) assert.ok(!logged.includes(secret), 'the callback code or state is in the log');
    assert.ok(/GET \/api\/mcp\/oauth\/callback\?\S*code=\*\*\*/.test(logged), 'the access log line is there, its query masked');
    assert.ok(rig.proc.lines.some((l) => /tool server sign-in completed for http:\/\/127\.0\.0\.1:\d+\/mcp/.test(l.line)));
  });

  it('Sign out forgets the tokens; the next use asks to sign in again', async () => {
    assert.equal((await get('/api/mcp/oauth/sign-out', { name: 'secure' })).status, 200);
    assert.deepEqual(JSON.parse(readFileSync(tokensFile(), 'utf8')).servers, {});
    const checked = (await get('/api/mcp/status/check', { name: 'secure' })).body;
    assert.equal(checked.signed_in, false);
    assert.equal(checked.auth_required, true);
    const bad = await fetch(`${rig.proc.url}/api/mcp/oauth/callback?state=forged&code=x`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /unknown or expired/);
  });

  it('a server that answers 401 without any OAuth metadata says so in words', async () => {
    const plain = createServer((_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"no"}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/mcp`;
      await rig.ok('POST', '/api/mcp/global/servers', { name: 'plain', server: { type: 'http', url } });
      const checked = (await get('/api/mcp/status/check', { name: 'plain' })).body;
      assert.equal(checked.auth_required, false);
      assert.equal(
        checked.error,
        `HTTP 401 (unauthorized: check the headers; sign-in failed: the server offers no sign-in this app can use) from ${url}`,
      );
    } finally {
      plain.close();
    }
  });
});
