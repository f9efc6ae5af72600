import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseUnits } from 'ethers';
import { stringify } from 'yaml';
import { api, BackendProcess, tempDir } from '../helpers/backend-process.js';
import { RpcProxy } from '../swap/rpc-proxy.js';
import { NATIVE, SwapChainHarness } from './chain-harness.js';

/** A backend whose swap.yaml is the devchain's with `chain` overrides (rpc_url through a proxy, …). */
async function backendWith(h: SwapChainHarness, chain: Record<string, unknown>): Promise<BackendProcess> {
  const dataDir = path.join(tempDir('svc-livechain-'), 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const yaml = structuredClone(h.chain.swapYaml.object) as unknown as { chains: { bsc: Record<string, unknown> } };
  Object.assign(yaml.chains.bsc, chain);
  writeFileSync(path.join(dataDir, 'swap.yaml'), stringify(yaml));
  return BackendProcess.start({ dataDir });
}

const build = (h: SwapChainHarness, b: BackendProcess, body: Record<string, unknown>) =>
  api(b.swapUrl, 'POST', '/api/v1/route/build', { body: { chain: 'bsc', sender: h.chain.user.address, ...body } });

describe('the route builder against a hosted-like node while blocks keep coming', () => {
  let h: SwapChainHarness;
  const backends: BackendProcess[] = [];
  const proxies: RpcProxy[] = [];
  let miner: NodeJS.Timeout | undefined;
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => {
    if (miner) clearInterval(miner);
    await Promise.all(backends.map((b) => b.stop()));
    await Promise.all(proxies.map((p) => p.stop()));
    await h?.stop();
  });
  const proxy = async (o: ConstructorParameters<typeof RpcProxy>[1]) => {
    const p = await new RpcProxy(h.chain.rpcUrl, o).start();
    proxies.push(p);
    return p;
  };
  const units = (amount: string, symbol: string) => parseUnits(amount, symbol === 'BNB' ? 18 : h.chain.token(symbol).decimals).toString();
  const requests = () => [
    { tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn: units('100', 'CAKE') },
    { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units('800', 'WBNB') },
    { tokenIn: h.token('ETH'), tokenOut: h.token('WBNB'), amountIn: units('300', 'ETH'), includedSources: ['swapb', 'swapav3'] },
    { tokenIn: NATIVE, tokenOut: h.token('USDC'), amountIn: units('5', 'BNB') },
    { tokenIn: h.token('USDT'), tokenOut: NATIVE, amountIn: units('2000', 'USDT') },
    { tokenIn: h.token('BTCB'), tokenOut: h.token('CAKE'), amountIn: units('0.5', 'BTCB') },
    { tokenIn: h.token('DOGE'), tokenOut: h.token('ETH'), amountIn: units('10000', 'DOGE') },
    { tokenIn: h.token('USDC'), tokenOut: h.token('BTCB'), amountIn: units('25000', 'USDC') },
  ];

  // Both builders must see the same inputs for the amounts to be comparable. Empty blocks leave
  // every pool as it was, but the node's suggested gas price (an input of the gas-aware search)
  // moves from block to block: anvil's suggestion drifts from 10 gwei (the devchain's set-up
  // transactions) towards 1 gwei over the first blocks, and the builder that read a later block
  // (the slower one, through the proxy) chose another route, 0.15 % apart, each right at its own
  // block. The comparison names the gas price, as a wallet may; what it checks is the pool state
  // read through the capped, rate-limiting node.
  it('builds every route through a capped, rate-limiting, slow node with the same amountOut as directly, and executes it exactly', async () => {
    // Hosted nodes cap batches at 20 or more; the builder's rounds now fit in a few calls (Multicall3),
    // so the cap here is lower for the refusal and the halving to be exercised at all.
    const slow = await proxy({ latencyMs: 20, maxBatch: 3, refusal: 'geth', rateLimitEvery: 7, retryAfter: '0' });
    const viaProxy = await backendWith(h, { rpc_url: slow.url, rpc: { max_batch: 100, max_in_flight: 4 } });
    backends.push(viaProxy);
    // A block every 0.45 s while routes are built, as on BNB Chain.
    miner = setInterval(() => void h.chain.provider.send('evm_mine', []).catch(() => {}), 450);
    try {
      await buildBoth(slow, viaProxy);
    } finally {
      clearInterval(miner);
      miner = undefined;
    }
    assert.ok(slow.refusedBatches >= 1, 'the cap was hit at least once');
    assert.ok(slow.rateLimited >= 1, 'a 429 was answered at least once');
    assert.ok((slow.methods.get('eth_call') ?? 0) > 0);
    const res = await build(h, viaProxy, requests()[2]);
    assert.equal(res.status, 200);
    const { received } = await h.execute(res.body);
    assert.equal(received, BigInt(res.body.amountOut), 'received exactly amountOut');
  });

  async function buildBoth(slow: RpcProxy, viaProxy: BackendProcess) {
    for (let pass = 0; pass < 2; pass++) {
      const refusedBefore = slow.refusedBatches;
      for (const body of requests()) {
        const priced = { ...body, gasPrice: '1000000000' };
        const [proxied, direct] = await Promise.all([build(h, viaProxy, priced), h.build(priced)]);
        assert.equal(direct.status, 200, JSON.stringify(direct.body));
        assert.equal(proxied.status, 200, `through the proxy: ${JSON.stringify(proxied.body)}`);
        // Empty blocks do not move pools: the same state at any of them.
        assert.equal(typeof proxied.body.routeInfo.blockNumber, 'number');
        assert.equal(proxied.body.amountOut, direct.body.amountOut, JSON.stringify(body));
      }
      // The node's cap was found on the first pass and remembered: no refused batch on the second.
      if (pass === 1) assert.equal(slow.refusedBatches, refusedBefore, 'the halved batch size is remembered');
    }
  }

  it('a warm build costs the head with the state in one round trip plus the gas simulation', async () => {
    const counting = await proxy({});
    const b = await backendWith(h, { rpc_url: counting.url, rpc: { poll_ms: 60_000 } });
    backends.push(b);
    const body = requests()[1];
    assert.equal((await build(h, b, body)).status, 200);
    await h.chain.provider.send('evm_mine', []);
    const head = Number(await h.chain.provider.send('eth_blockNumber', []));
    const before = counting.log.length;
    const res = await build(h, b, body);
    assert.equal(res.status, 200);
    assert.equal(res.body.routeInfo.blockNumber, head, 'computed at the latest block');
    assert.equal(res.body.routeInfo.gasSource, 'simulation');
    // The V4 Initialize-log index catches up in the background (never waited on): not counted.
    const waited = counting.log.slice(before).filter((r) => !r.includes('eth_getLogs'));
    assert.ok(waited.length <= 2, `round trips for a warm build: ${JSON.stringify(waited)}`);
  });

  it('with ws_url, new heads arrive by subscription and a build finds their state already read', async () => {
    const counting = await proxy({});
    const b = await backendWith(h, { rpc_url: counting.url, ws_url: h.chain.rpcUrl.replace(/^http/, 'ws') });
    backends.push(b);
    const body = { ...requests()[0], simulateGas: false };
    assert.equal((await build(h, b, body)).status, 200);
    let seen = false;
    // Each attempt mines a block and waits for the follower's read of it (the proxy sees it).
    for (let attempt = 0; attempt < 20 && !seen; attempt++) {
      const before = counting.requests;
      await h.chain.provider.send('evm_mine', []);
      const head = Number(await h.chain.provider.send('eth_blockNumber', []));
      const deadline = Date.now() + 15_000;
      // The follower's read of the new block has started and been answered: a build sent before the
      // answer raced the follower and did its own round (what made this test fail under load).
      while ((counting.requests === before || counting.answered < counting.requests) && Date.now() < deadline)
        await new Promise((r) => setImmediate(r));
      assert.ok(counting.requests > before, 'the follower read the new head');
      const during = counting.log.length;
      const res = await build(h, b, body);
      assert.equal(res.status, 200);
      if (res.body.routeInfo.blockNumber === head) {
        seen = true;
        // The head came by subscription and its state was read in the background: no request now
        // (the V4 Initialize-log index catching up in the background aside).
        const asked = counting.log.slice(during).filter((r) => !r.includes('eth_getLogs'));
        assert.deepEqual(asked, [], 'the build itself asked the node nothing');
      }
    }
    assert.ok(seen, 'a build found the newest block already read');
  });
});
