import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { parseUnits } from 'ethers';
import { NATIVE, SwapChainHarness } from './chain-harness.js';

const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'; // anvil account #2
const EMPTY = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'; // anvil account #3: holds no test tokens

const units = (h: SwapChainHarness, amount: string, symbol: string) =>
  parseUnits(amount, symbol === 'BNB' ? 18 : h.chain.token(symbol).decimals).toString();

/** Wraps are refund-heavy (see SwapChainHarness.checkGas): the needed limit is ~28 % above gasUsed. */
const WRAP_ERROR = 0.3;

describe('wraps and gas estimates on a real chain', () => {
  let h: SwapChainHarness;
  let snap: string;
  const report: string[] = [];
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => {
    if (report.length) console.log(`gas estimate vs gasUsed:\n  ${report.join('\n  ')}`);
    await h?.stop();
  });
  beforeEach(async () => {
    snap = await h.chain.snapshot();
  });
  afterEach(async () => h.chain.revert(snap));

  async function run(name: string, body: Record<string, unknown>, opts: { recipient?: string; maxError?: number } = {}) {
    const res = await h.build(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const route = res.body;
    // Simulated: the wallet sends exactly `gas` as its limit (the harness does), so it must hold.
    const { received, receipt } = await h.execute(route, opts);
    assert.equal(received, BigInt(route.amountOut), `${name}: recipient received exactly amountOut`);
    const err = SwapChainHarness.checkGas(route, receipt);
    report.push(
      `${name.padEnd(34)} ${route.routeInfo.gasSource.padEnd(10)} gas ${route.gas} used ${receipt.gasUsed} (${(err * 100).toFixed(1)} %)`,
    );
    assert.ok(Math.abs(err) <= (opts.maxError ?? 0.35), `${name}: gas ${route.gas} vs gasUsed ${receipt.gasUsed}`);
    return { route, receipt };
  }

  it('native → wrapped is a swapWrap: amountOut == amountIn, one wrap hop, value = amountIn', async () => {
    const amountIn = units(h, '3', 'BNB');
    const { route } = await run('wrap BNB→WBNB', { tokenIn: NATIVE, tokenOut: h.token('WBNB'), amountIn }, { maxError: WRAP_ERROR });
    assert.equal(route.executorData.slice(0, 10), '0x01617fab');
    assert.equal(BigInt(`0x${route.executorData.slice(74, 138)}`), BigInt(amountIn), 'rawdata: bit 255 clear, amount in the low bits');
    assert.equal(route.amountOut, amountIn);
    assert.equal(route.value, amountIn);
    assert.equal(route.swapType, 'simple');
    assert.equal(route.routeInfo.gasSource, 'simulation');
    assert.ok(BigInt(route.gasPrice) > 0n, 'the node prices a wrap too');
    assert.deepEqual(
      route.routeInfo.paths.map((p: any) => p.hops.map((x: any) => x.dex)),
      [['wrap']],
    );
  });

  it('wrapped → native is a reversed swapWrap pulled through the approval contract', async () => {
    const amountIn = units(h, '2', 'WBNB');
    const { route } = await run('unwrap WBNB→BNB', { tokenIn: h.token('WBNB'), tokenOut: NATIVE, amountIn }, { maxError: WRAP_ERROR });
    assert.equal(route.executorData.slice(0, 10), '0x01617fab');
    assert.equal(BigInt(`0x${route.executorData.slice(74, 138)}`), (1n << 255n) | BigInt(amountIn));
    assert.equal(route.value, '0');
  });

  it('to another recipient both directions use swapWrapToWithBaseRequest', async () => {
    const a = await run(
      'wrap to other',
      { tokenIn: NATIVE, tokenOut: h.token('WBNB'), amountIn: units(h, '1', 'BNB'), recipient: OTHER },
      { recipient: OTHER, maxError: WRAP_ERROR },
    );
    assert.equal(a.route.executorData.slice(0, 10), '0x98d2ac62');
    const b = await run(
      'unwrap to other',
      { tokenIn: h.token('WBNB'), tokenOut: NATIVE, amountIn: units(h, '1', 'WBNB'), recipient: OTHER },
      { recipient: OTHER, maxError: WRAP_ERROR },
    );
    assert.equal(b.route.executorData.slice(0, 10), '0x98d2ac62');
  });

  it('a wrap amount beyond 128 bits is a 400 naming amountIn', async () => {
    const res = await h.build({ tokenIn: NATIVE, tokenOut: h.token('WBNB'), amountIn: (1n << 130n).toString() });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'amountIn');
  });

  const shapes: [string, (h: SwapChainHarness) => Record<string, unknown>][] = [
    [
      'V2 simple',
      (h) => ({ tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn: units(h, '100', 'CAKE'), includedSources: ['swapb'] }),
    ],
    [
      'V3 simple',
      (h) => ({ tokenIn: h.token('ETH'), tokenOut: h.token('USDC'), amountIn: units(h, '100', 'ETH'), includedSources: ['swapb-v3'] }),
    ],
    ['batch', (h) => ({ tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units(h, '800', 'WBNB') })],
    ['multihop', (h) => ({ tokenIn: h.token('DOGE'), tokenOut: h.token('MEME'), amountIn: units(h, '1000', 'DOGE') })],
    ['parallel multihop', (h) => ({ tokenIn: h.token('ETH'), tokenOut: h.token('USDC'), amountIn: units(h, '200', 'ETH') })],
    ['native in', (h) => ({ tokenIn: NATIVE, tokenOut: h.token('USDT'), amountIn: units(h, '2', 'BNB') })],
    ['native out', (h) => ({ tokenIn: h.token('USDT'), tokenOut: NATIVE, amountIn: units(h, '1500', 'USDT') })],
    ['native out, big', (h) => ({ tokenIn: h.token('USDT'), tokenOut: NATIVE, amountIn: units(h, '400000', 'USDT') })],
  ];

  it('simulated gas is the limit each swap shape needs (sent as its exact gas limit)', async () => {
    for (const [name, body] of shapes) {
      const id = await h.chain.snapshot();
      const { route } = await run(`${name} (simulated)`, body(h));
      assert.equal(route.routeInfo.gasSource, 'simulation', name);
      await h.chain.revert(id);
    }
  });

  it('simulateGas: false answers the gas model, within 20 % of gasUsed', async () => {
    for (const [name, body] of shapes) {
      const id = await h.chain.snapshot();
      const { route } = await run(`${name} (model)`, { ...body(h), simulateGas: false }, { maxError: 0.2 });
      assert.equal(route.routeInfo.gasSource, 'model', name);
      await h.chain.revert(id);
    }
  });

  it('simulates for a sender that has not funded or approved anything yet', async () => {
    const res = await h.build({
      sender: EMPTY,
      tokenIn: h.token('USDT'),
      tokenOut: h.token('CAKE'),
      amountIn: units(h, '500', 'USDT'),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.routeInfo.gasSource, 'simulation');
    assert.ok(Number(res.body.gas) > 80_000, res.body.gas);
  });
});
