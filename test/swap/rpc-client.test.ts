import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AbiCoder } from 'ethers';
import { JsonRpcClient, RpcError } from '../../backend/swap/onchain/json-rpc.js';
import { MulticallClient } from '../../backend/swap/onchain/multicall.js';

type Reply = { status?: number; headers?: Record<string, string>; body: unknown };

/** A node whose answer to each HTTP request is decided by `reply` (batch in, reply out). */
class ScriptedNode {
  url = '';
  requests: { id: number; method: string }[][] = [];
  reply: (batch: { id: number; method: string }[], n: number) => Reply = (b) => ({
    body: b.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method })),
  });
  private server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const batch = JSON.parse(body) as { id: number; method: string }[];
      this.requests.push(batch);
      const r = this.reply(batch, this.requests.length);
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
      res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
    });
  });
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v3/secret-key`;
  }
  get host() {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ method: `m${i}`, params: [] }));
const ok = (b: { id: number; method: string }[]): Reply => ({ body: b.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method })) });

describe('JSON-RPC client against hosted-node behaviour', () => {
  const node = new ScriptedNode();
  before(() => node.start());
  after(() => node.stop());
  const reset = (reply: ScriptedNode['reply']) => {
    node.requests = [];
    node.reply = reply;
  };

  it('splits a large batch to the cap, keeps call order, and bounds requests in flight', async () => {
    reset(ok);
    const rpc = new JsonRpcClient(node.url, { maxBatch: 10, maxInFlight: 2 });
    const out = await rpc.batch<string>(calls(35));
    assert.deepEqual(
      out,
      calls(35).map((c) => c.method),
    );
    assert.deepEqual(
      node.requests.map((r) => r.length).sort((a, b) => b - a),
      [10, 10, 10, 5],
    );
  });

  it('halves the batch on geth\'s -32600 "batch too large" and remembers the size', async () => {
    reset((b) => (b.length > 8 ? { body: { jsonrpc: '2.0', id: b[0].id, error: { code: -32600, message: 'batch too large' } } } : ok(b)));
    const rpc = new JsonRpcClient(node.url, { maxBatch: 40 });
    assert.deepEqual(
      await rpc.batch<string>(calls(40)),
      calls(40).map((c) => c.method),
    );
    assert.equal(rpc.batchLimit, 5);
    const before = node.requests.length;
    await rpc.batch(calls(20));
    // Remembered: no refused request the second time, four batches of 5.
    assert.deepEqual(
      node.requests.slice(before).map((r) => r.length),
      [5, 5, 5, 5],
    );
  });

  it('halves the batch on HTTP 413 and on an HTTP 400 naming the batch', async () => {
    reset((b) => (b.length > 6 ? { status: 413, body: 'Payload Too Large' } : ok(b)));
    const rpc = new JsonRpcClient(node.url, { maxBatch: 24 });
    assert.equal((await rpc.batch(calls(24))).length, 24);
    assert.equal(rpc.batchLimit, 6);
    reset((b) => (b.length > 3 ? { status: 400, body: 'batch size limit exceeded' } : ok(b)));
    const rpc2 = new JsonRpcClient(node.url, { maxBatch: 12 });
    assert.equal((await rpc2.batch(calls(12))).length, 12);
    assert.equal(rpc2.batchLimit, 3);
  });

  it('retries 429 (with Retry-After), 503 and -32005 rate-limit answers and succeeds', async () => {
    reset((b, n) => {
      if (n === 1) return { status: 429, headers: { 'retry-after': '0' }, body: 'Too Many Requests' };
      if (n === 2) return { status: 503, body: '' };
      if (n === 3) return { body: b.map((c) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32005, message: 'limit exceeded' } })) };
      return ok(b);
    });
    const rpc = new JsonRpcClient(node.url);
    assert.deepEqual(await rpc.batch(calls(3)), ['m0', 'm1', 'm2']);
    assert.equal(node.requests.length, 4);
  });

  it('gives up at once when Retry-After lies beyond the deadline, naming the host and the answer', async () => {
    reset(() => ({ status: 429, headers: { 'retry-after': '30' }, body: 'slow down' }));
    const rpc = new JsonRpcClient(node.url, { timeoutMs: 2_000 });
    const started = Date.now();
    await assert.rejects(rpc.batch(calls(2)), (err: Error) => {
      assert.ok(err instanceof RpcError);
      assert.match(
        err.message,
        new RegExp(`the RPC node ${node.host.replace('.', '\\.')} answered HTTP 429 \\(slow down\\) \\(retry after 30 s\\)`),
      );
      assert.doesNotMatch(err.message, /secret-key/);
      return true;
    });
    assert.equal(node.requests.length, 1, 'no second request after a Retry-After beyond the deadline');
    assert.ok(Date.now() - started < 2_000);
  });

  it('an optional call that reverts answers 0x; the same revert fails a call that is not optional', async () => {
    const revert = { code: 3, message: 'execution reverted' };
    reset((b) => ({
      body: b.map((c) =>
        c.method === 'm1' ? { jsonrpc: '2.0', id: c.id, error: revert } : { jsonrpc: '2.0', id: c.id, result: c.method },
      ),
    }));
    const batch = calls(3);
    assert.deepEqual(await new JsonRpcClient(node.url).batch([batch[0], { ...batch[1], optional: true }, batch[2]]), ['m0', '0x', 'm2']);
    await assert.rejects(new JsonRpcClient(node.url).batch(batch), /failed m1: execution reverted/);
  });

  it('through Multicall3, a failed optional sub-call answers 0x and the others keep their answers', async () => {
    // The node answers each aggregate3 with the second sub-call failed (a pair without the function).
    const answer = AbiCoder.defaultAbiCoder().encode(
      ['(bool,bytes)[]'],
      [
        [
          [true, `0x${'0a'.repeat(32)}`],
          [false, '0x'],
          [true, `0x${'0b'.repeat(32)}`],
        ],
      ],
    );
    reset((b) => ({ body: b.map((c) => ({ jsonrpc: '2.0', id: c.id, result: answer })) }));
    const read = (optional?: boolean) =>
      ['0x01', '0x02', '0x03'].map((data, i) => ({
        method: 'eth_call',
        params: [{ to: `0x${'1'.repeat(40)}`, data }, '0x10'],
        optional: i === 1 && optional,
      }));
    const multicall = new MulticallClient(new JsonRpcClient(node.url));
    assert.deepEqual(await multicall.batch(read(true)), [`0x${'0a'.repeat(32)}`, '0x', `0x${'0b'.repeat(32)}`]);
    assert.equal(node.requests.length, 1, 'one aggregate3 for the three reads');
    await assert.rejects(multicall.batch(read(false)), /execution reverted/);
  });

  it("names the node's own error for a failed call, and a refusal of even one call", async () => {
    reset((b) => ({ body: b.map((c) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32000, message: 'header not found' } })) }));
    await assert.rejects(new JsonRpcClient(node.url).batch(calls(1)), /the RPC node 127\.0\.0\.1:\d+ failed m0: header not found/);
    reset(() => ({ status: 413, body: 'too large' }));
    await assert.rejects(new JsonRpcClient(node.url).batch(calls(1)), /refused even a single call: answered HTTP 413/);
    reset(() => ({ status: 500, body: 'upstream exploded' }));
    await assert.rejects(new JsonRpcClient(node.url).batch(calls(2)), /answered HTTP 500 \(upstream exploded\)/);
  });
});
