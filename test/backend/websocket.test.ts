import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, BackendProcess, startPaired } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';

describe('WebSocket /ws', () => {
  let proc: BackendProcess;
  let credential: string;
  let ws: string;
  const issued: string[] = [];
  before(async () => {
    ({ proc, credential } = await startPaired());
    ws = proc.url.replace('http', 'ws') + '/ws';
    issued.push(credential);
  });
  after(async () => {
    await proc.stop();
  });

  it('greets with hello (node_id, version) given the query credential', async () => {
    const conn = await openWs(`${ws}?service_credential=${credential}`);
    const hello = await conn.next((m) => m.type === 'hello');
    const status = await api(proc.url, 'GET', '/api/version');
    assert.equal(hello.version, status.body.version);
    assert.match(hello.node_id, /^[0-9a-f-]{36}$/);
    conn.socket.send(JSON.stringify({ type: 'ping' }));
    assert.deepEqual(await conn.next((m) => m.type === 'pong'), { type: 'pong' });
    conn.socket.close();
  });

  it('accepts the Authorization header for non-browser clients', async () => {
    const conn = await openWs(ws, { authorization: `Bearer ${credential}` });
    assert.equal((await conn.next()).type, 'hello');
    conn.socket.close();
  });

  it('refuses a wrong or missing credential with 401 before the upgrade', async () => {
    for (const url of [ws, `${ws}?service_credential=svc_wrong`, `${ws}?service_credential=`]) {
      await assert.rejects(openWs(url), (err: { status?: number }) => err.status === 401);
    }
    await assert.rejects(openWs(ws, { authorization: 'Bearer nope' }), (err: { status?: number }) => err.status === 401);
  });

  it('streams log lines to subscribers of the log topic', async () => {
    const conn = await openWs(`${ws}?service_credential=${credential}`);
    await conn.next((m) => m.type === 'hello');
    conn.socket.send(JSON.stringify({ type: 'subscribe', topics: ['log'] }));
    // The subscription is processed in order, so a request after a ping/pong round trip is seen.
    conn.socket.send(JSON.stringify({ type: 'ping' }));
    await conn.next((m) => m.type === 'pong');
    await api(proc.url, 'GET', '/health?marker=ws-log-test');
    const entry = await conn.next((m) => m.type === 'log' && /marker=ws-log-test/.test(m.line));
    assert.equal(typeof entry.seq, 'number');
    conn.socket.close();
  });

  it('closes the sockets of a rotated credential', async () => {
    const conn = await openWs(`${ws}?service_credential=${credential}`);
    await conn.next((m) => m.type === 'hello');
    const rotated = await api(proc.url, 'POST', '/api/selfhost/credential/rotate', { credential });
    assert.equal(rotated.status, 200);
    const closed = await conn.closed;
    assert.equal(closed.code, 4001);
    await assert.rejects(openWs(`${ws}?service_credential=${credential}`), (err: { status?: number }) => err.status === 401);
    credential = rotated.body.credential;
    issued.push(credential);
    const fresh = await openWs(`${ws}?service_credential=${credential}`);
    assert.equal((await fresh.next()).type, 'hello');
    fresh.socket.close();
  });

  it('never writes the credential or the query value into the log', async () => {
    const text = proc.output();
    for (const c of issued) assert.ok(!text.includes(c), 'credential in the log');
    assert.ok(!/service_credential=svc_[A-Za-z0-9_-]{10,}/.test(text));
    const logs = await api(proc.url, 'GET', '/api/logs', { credential });
    for (const c of issued) assert.ok(!JSON.stringify(logs.body).includes(c));
  });
});
