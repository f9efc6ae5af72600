import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Contract, parseUnits } from 'ethers';
import { NATIVE, SwapChainHarness } from './chain-harness.js';

const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'; // anvil account #2
const units = (h: SwapChainHarness, amount: string, symbol: string) =>
  parseUnits(amount, symbol === 'BNB' ? 18 : h.chain.token(symbol).decimals).toString();

describe('built routes execute on a real chain exactly as quoted', () => {
  let h: SwapChainHarness;
  let snap: string;
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => h?.stop());
  beforeEach(async () => {
    snap = await h.chain.snapshot();
  });
  afterEach(async () => h.chain.revert(snap));

  /** Builds, executes, and checks the user-visible promises of the response. */
  async function buildAndRun(body: Record<string, unknown>, expectType?: string, opts: { recipient?: string } = {}) {
    const res = await h.build(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const route = res.body;
    if (expectType) assert.equal(route.swapType, expectType, JSON.stringify(route.routeInfo));
    const { received, receipt } = await h.execute(route, opts);
    assert.equal(received, BigInt(route.amountOut), 'recipient received exactly amountOut');
    assert.ok(received >= BigInt(route.minAmountOut));
    SwapChainHarness.checkGas(route, receipt);
    return { route, receipt };
  }

  it('simple: one V2 pool', async () => {
    const { route } = await buildAndRun(
      { tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn: units(h, '100', 'CAKE'), includedSources: ['swapb'] },
      'simple',
    );
    assert.equal(route.routeInfo.source, 'onchain');
    assert.equal(route.routeInfo.paths[0].hops[0].dex, 'swapb');
    assert.equal(typeof route.amountInUsd, 'number');
    assert.ok(Math.abs(route.amountInUsd - 250) < 5, `amountInUsd ${route.amountInUsd}`);
  });

  it('simple: one V3 pool crossing initialized ticks', async () => {
    // ETH connects to nothing but USDC on swapb-v3, so the route is one V3 pool.
    const { route } = await buildAndRun(
      { tokenIn: h.token('ETH'), tokenOut: h.token('USDC'), amountIn: units(h, '100', 'ETH'), includedSources: ['swapb-v3'] },
      'simple',
    );
    assert.equal(route.routeInfo.paths[0].hops[0].version, 'v3');
  });

  it('batch: a large trade split over a V2 and a V3 pool of one pair', async () => {
    const { route } = await buildAndRun(
      { tokenIn: h.token('ETH'), tokenOut: h.token('WBNB'), amountIn: units(h, '300', 'ETH'), includedSources: ['swapb', 'swapav3'] },
      'batch',
    );
    // swapav3 also has a V4 pool of this pair (devchain), which may take a share too.
    const versions = route.routeInfo.paths.map((p: any) => p.hops[0].version);
    assert.ok(versions.includes('v2') && versions.includes('v3'), versions.join(','));
  });

  it('a split pays more than any single path would', async () => {
    const body = { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units(h, '800', 'WBNB') };
    const split = (await h.build(body)).body;
    assert.ok(split.routeInfo.paths.length > 1);
    for (const source of ['swapa', 'swapb', 'swapav3', 'swapb-v3']) {
      const single = (await h.build({ ...body, includedSources: [source] })).body;
      assert.ok(BigInt(split.amountOut) > BigInt(single.amountOut), `split beats ${source} alone`);
    }
    await buildAndRun(body);
  });

  it('multihop: DOGE to MEME through three hops', async () => {
    const { route } = await buildAndRun(
      { tokenIn: h.token('DOGE'), tokenOut: h.token('MEME'), amountIn: units(h, '1000', 'DOGE') },
      'multihop',
    );
    assert.equal(route.routeInfo.paths[0].hops.length, 3);
  });

  it('parallel_multihop: a large trade over disjoint multihop paths', async () => {
    const { route } = await buildAndRun(
      { tokenIn: h.token('ETH'), tokenOut: h.token('USDC'), amountIn: units(h, '200', 'ETH') },
      'parallel_multihop',
    );
    assert.ok(route.routeInfo.paths.length > 1);
    assert.ok(route.routeInfo.paths.some((p: any) => p.hops.length > 1));
  });

  it('native input: BNB in, value set, wrapped on the way', async () => {
    const { route } = await buildAndRun({ tokenIn: NATIVE, tokenOut: h.token('USDT'), amountIn: units(h, '2', 'BNB') });
    assert.equal(route.value, route.amountIn);
    assert.equal(route.routeInfo.paths[0].hops[0].tokenIn, h.token('WBNB'));
  });

  it('native output: BNB out, unwrapped by the router', async () => {
    const { route } = await buildAndRun({ tokenIn: h.token('USDT'), tokenOut: NATIVE, amountIn: units(h, '1500', 'USDT') });
    assert.equal(route.value, '0');
  });

  it('a recipient other than the sender is paid (smartSwapTo)', async () => {
    const before = await h.balance(h.token('USDT'), h.chain.user.address);
    const { route } = await buildAndRun(
      { tokenIn: h.token('WBNB'), tokenOut: h.token('USDC'), amountIn: units(h, '1', 'WBNB'), recipient: OTHER },
      undefined,
      { recipient: OTHER },
    );
    assert.equal(route.executorData.slice(0, 10), '0x03b87e5f');
    assert.equal(await h.balance(h.token('USDT'), h.chain.user.address), before);
  });

  it('an expired deadline reverts with Route: expired', async () => {
    const res = await h.build({
      tokenIn: h.token('CAKE'),
      tokenOut: h.token('USDT'),
      amountIn: units(h, '10', 'CAKE'),
      deadline: Math.floor(Date.now() / 1000) + 60,
    });
    assert.equal(res.status, 200);
    await h.chain.provider.send('evm_increaseTime', [3600]);
    await h.chain.provider.send('evm_mine', []);
    assert.match(await h.revertReason(res.body), /Route: expired/);
  });

  it('a price moved beyond the slippage reverts; within the slippage it succeeds', async () => {
    const body = {
      tokenIn: h.token('USDT'),
      tokenOut: h.token('CAKE'),
      amountIn: units(h, '2000', 'USDT'),
      includedSources: ['swapb'],
      slippageTolerance: 50,
    };
    const tight = (await h.build(body)).body;
    const loose = (await h.build({ ...body, slippageTolerance: 3000 })).body;
    // Another trader buys CAKE on the same pool first.
    const mover = await h.chain.provider.getSigner(OTHER);
    const usdt = new Contract(h.token('USDT'), ['function transfer(address,uint256) returns (bool)'], h.user);
    await h.chain.mined((await usdt.getFunction('transfer').send(OTHER, BigInt(units(h, '30000', 'USDT')))).hash);
    const front = (await h.build({ ...body, sender: OTHER, amountIn: units(h, '30000', 'USDT') })).body;
    const approve = new Contract(h.token('USDT'), ['function approve(address,uint256) returns (bool)'], mover);
    await h.chain.mined((await approve.getFunction('approve').send(front.executorAddress, BigInt(front.amountIn))).hash);
    await h.send(mover, { to: front.aggregatorAddress, data: front.executorData, value: 0n, gasLimit: BigInt(front.gas) * 2n });
    assert.match(await h.revertReason(tight), /Min return not reached/);
    const { received } = await h.execute(loose);
    assert.ok(received >= BigInt(loose.minAmountOut));
    assert.ok(received < BigInt(loose.amountOut), 'the moved price paid less than quoted');
  });

  it('answers 400 no_route when no supported pool connects the tokens', async () => {
    const res = await h.build({ tokenIn: h.token('MEME'), tokenOut: h.token('DOGE'), amountIn: '1000', includedSources: ['swapav3'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'no_route');
  });
});
