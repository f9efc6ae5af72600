import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseUnits } from 'ethers';
import { api, type BackendProcess } from '../helpers/backend-process.js';
import { RpcProxy, type ProxyOptions } from '../swap/rpc-proxy.js';
import { SwapChainHarness } from './chain-harness.js';

/**
 * Round trips to the node per build (DESIGN 17), counted by the RPC proxy, never timed. Blocks are
 * mined by hand so the counts are deterministic. Nothing here executes a swap: the pools keep the
 * devchain's state, so the tick words a large trade needs are the same on every run.
 */
describe('round trips of a route build on a live-like node', () => {
  let h: SwapChainHarness;
  const backends: BackendProcess[] = [];
  const proxies: RpcProxy[] = [];
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => {
    for (const p of proxies) p.release();
    await Promise.all(backends.map((b) => b.stop()));
    await Promise.all(proxies.map((p) => p.stop()));
    await h?.stop();
  });
  const proxy = async (o: ProxyOptions) => {
    const p = await new RpcProxy(h.chain.rpcUrl, o).start();
    proxies.push(p);
    return p;
  };
  const backend = async (bsc: Record<string, unknown>) => {
    const b = await h.backendWith(bsc);
    backends.push(b);
    return b;
  };
  const build = (b: BackendProcess, body: Record<string, unknown>) =>
    api(b.swapUrl, 'POST', '/api/v1/route/build', { body: { chain: 'bsc', sender: h.chain.user.address, ...body } });
  const amount = (a: string, symbol: string) => parseUnits(a, h.chain.token(symbol).decimals).toString();
  const mine = async () => {
    await h.chain.provider.send('evm_mine', []);
    return Number(await h.chain.provider.send('eth_blockNumber', []));
  };
  /** Polls a condition the backend's traffic will make true (no fixed sleep). */
  const until = async (what: string, ok: () => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!ok()) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  /** The V4 Initialize-log index catches up in the background and is never waited on. */
  const notIndex = (calls: string[]) => !calls.includes('eth_getLogs');
  const describeRequests = (p: RpcProxy, from: number) => JSON.stringify(p.timeline.slice(from).map((e) => e.calls));

  it('a first build on a fresh backend takes at most 6 sequential round trips, discovery and gas simulation included', async () => {
    // Requests sent together overlap at the proxy (each waits 150 ms), so the longest chain of
    // requests each sent after the previous one's answer is the number of sequential round trips.
    const p = await proxy({ latencyMs: 150 });
    const b = await backend({ rpc_url: p.url, rpc: { poll_ms: 60_000 } });
    // A split of a large trade over V2, V3 and V4 pools: it walks many tick words.
    const res = await build(b, { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: amount('800', 'WBNB') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.routeInfo.gasSource, 'simulation');
    assert.ok(res.body.routeInfo.paths.length > 1, 'a split route');
    const rounds = p.rounds(0, notIndex);
    assert.ok(rounds <= 6, `${rounds} sequential round trips: ${describeRequests(p, 0)}`);
  });

  it('with polled heads, a build that arrives while the head read is in flight joins it instead of reading the head again', async () => {
    const p = await proxy({});
    // A poll every 5 s: long enough that no second poll falls inside the build checked below.
    const b = await backend({ rpc_url: p.url, rpc: { poll_ms: 5_000 } });
    const warm = await build(b, { tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn: amount('100', 'CAKE') });
    assert.equal(warm.status, 200, JSON.stringify(warm.body));
    const head = await mine();
    // The follower's next poll is kept in flight at the proxy.
    p.hold();
    const polls = p.timeline.length;
    await until('the follower to poll the head', () => p.held > 0);
    assert.ok(
      p.timeline.slice(polls).some((e) => e.calls.includes('eth_getBlockByNumber')),
      describeRequests(p, polls),
    );
    const from = p.timeline.length;
    // A new pair: its token decimals are asked at once (beside the head), which shows the build
    // has reached the head read and joined it.
    const pending = build(b, {
      tokenIn: h.token('CAKE'),
      tokenOut: h.token('BTCB'),
      amountIn: amount('100', 'CAKE'),
      simulateGas: false,
    });
    await until('the build to ask for its tokens', () => p.held > 1);
    p.release();
    const res = await pending;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.routeInfo.blockNumber, head, 'computed at the block the shared read saw');
    const own = p.timeline.slice(from).filter((e) => e.calls.includes('eth_getBlockByNumber') && notIndex(e.calls));
    assert.deepEqual(own, [], `the build read the head again: ${describeRequests(p, from)}`);
  });

  it('with polled heads, a warm build after a new block costs one round trip before the gas simulation', async () => {
    const p = await proxy({ latencyMs: 40 });
    const b = await backend({ rpc_url: p.url, rpc: { poll_ms: 60_000 } });
    const body = { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: amount('800', 'WBNB') };
    assert.equal((await build(b, body)).status, 200);
    const head = await mine();
    const from = p.timeline.length;
    const res = await build(b, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.routeInfo.blockNumber, head);
    assert.equal(res.body.routeInfo.gasSource, 'simulation');
    const rounds = p.rounds(from, (c) => notIndex(c) && !c.includes('eth_estimateGas'));
    assert.ok(rounds <= 1, `${rounds} round trips before the simulation: ${describeRequests(p, from)}`);
  });

  it('with ws_url heads, a build at a block the follower has read asks the node nothing but the gas simulation', async () => {
    const p = await proxy({});
    const b = await backend({ rpc_url: p.url, ws_url: h.chain.rpcUrl.replace(/^http/, 'ws') });
    const body = { tokenIn: h.token('ETH'), tokenOut: h.token('WBNB'), amountIn: amount('300', 'ETH') };
    assert.equal((await build(b, body)).status, 200);
    // The subscription is live once a mined block makes the follower read the head with no build
    // in flight (a block mined before it was live is not pushed: mine another).
    let head = 0;
    for (let pushed = false, attempt = 0; !pushed; attempt++) {
      assert.ok(attempt < 20, 'the follower never read a pushed head');
      const before = p.timeline.length;
      head = await mine();
      const deadline = Date.now() + 5_000;
      await until('a head read or its deadline', () => p.timeline.length > before || Date.now() > deadline);
      pushed = p.timeline.slice(before).some((e) => e.calls.includes('eth_gasPrice'));
    }
    // Builds until one is computed at the new block: the follower has then read it (its state
    // included). Every build meanwhile computes at a block already read, so none may ask anything.
    for (;;) {
      await until('the proxy to answer what it got', () => p.answered === p.requests);
      const from = p.timeline.length;
      const res = await build(b, body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.routeInfo.gasSource, 'simulation');
      const asked = p.timeline.slice(from).filter((e) => notIndex(e.calls) && !e.calls.every((c) => c === 'eth_estimateGas'));
      if (res.body.routeInfo.blockNumber !== head) continue;
      assert.deepEqual(asked, [], `the build asked the node: ${describeRequests(p, from)}`);
      break;
    }
  });
});
