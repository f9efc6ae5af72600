import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { AbiCoder, getAddress, parseUnits } from 'ethers';
import type { DevchainV4Pool } from '../../devchain/create-v4-pools.js';
import { decodeSwap } from '../swap/decode-swap.js';
import { NATIVE, SwapChainHarness } from './chain-harness.js';
import { addV4Pool, v3PoolQuote, v4PoolQuote } from './v4-helpers.js';

const coder = AbiCoder.defaultAbiCoder();
const ZERO = '0x0000000000000000000000000000000000000000';

describe('V4 pools (swapav3) in routes built through the real listener and executed', () => {
  let h: SwapChainHarness;
  let snap: string;
  const pool = (a: string, b: string, routable = true): DevchainV4Pool => {
    const p = h.chain.v4Pools.find((x) => x.a === a && x.b === b && x.routable === routable);
    if (!p) throw new Error(`no V4 pool ${a}/${b}`);
    return p;
  };
  const units = (amount: string, symbol: string) => parseUnits(amount, symbol === 'BNB' ? 18 : h.chain.token(symbol).decimals).toString();
  const hops = (route: any) => route.routeInfo.paths.flatMap((p: any) => p.hops);

  const gasReport: string[] = [];
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => {
    console.log(`V4 routes, gas:\n  ${gasReport.join('\n  ')}`);
    await h?.stop();
  });
  beforeEach(async () => {
    snap = await h.chain.snapshot();
  });
  afterEach(async () => h.chain.revert(snap));

  /** Builds, executes as a wallet, and checks exact payment and gas. */
  async function run(request: Record<string, unknown>, expectType?: string) {
    const body = { deadline: Math.floor(Date.now() / 1000) + 3600, ...request };
    const res = await h.build(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const route = res.body;
    if (expectType) assert.equal(route.swapType, expectType, JSON.stringify(route.routeInfo));
    const id = await h.chain.snapshot();
    const { received, receipt } = await h.execute(route);
    assert.equal(received, BigInt(route.amountOut), 'recipient received exactly amountOut');
    SwapChainHarness.checkGas(route, receipt);
    await h.chain.revert(id);
    const id2 = await h.chain.snapshot();
    // The gas model on its own (no simulation) must hold within 20 % as well.
    const model = (await h.build({ ...body, simulateGas: false })).body;
    assert.equal(model.routeInfo.gasSource, 'model');
    assert.equal(model.executorData, route.executorData);
    const again = await h.execute(model);
    await h.chain.revert(id2);
    gasReport.push(
      `${route.swapType} ${hops(route)
        .map((x: any) => x.version)
        .join('+')}: simulated ${route.gas}, model ${model.gas}, used ${again.receipt.gasUsed}`,
    );
    SwapChainHarness.checkGas(model, again.receipt);
    return route;
  }

  it('a V4-only simple swap carries the adapter convention in its calldata', async () => {
    const p = pool('USDC', 'CAKE');
    const route = await run(
      { tokenIn: h.token('USDC'), tokenOut: h.token('CAKE'), amountIn: units('500', 'USDC'), includedSources: ['swapav3'] },
      'simple',
    );
    const [hop] = hops(route);
    assert.equal(hop.version, 'v4');
    assert.equal(hop.dex, 'swapav3');
    assert.equal(hop.pool, p.id);
    assert.equal(hop.fee, 2000);
    const decoded = decodeSwap(route.executorData);
    const leg = decoded.batches[0][0].pools[0];
    assert.equal(leg.adapter, getAddress(h.chain.addresses.v4.adapter));
    assert.equal(leg.assetTo, getAddress(h.chain.addresses.v4.adapter));
    assert.equal(leg.pool, ZERO, 'rawData pool bits are 0 for V4');
    assert.equal(leg.weight, 10000);
    assert.deepEqual(coder.decode(['address', 'address', 'uint24', 'int24'], leg.extraData).toArray(), [
      h.token('USDC'),
      h.token('CAKE'),
      2000n,
      40n,
    ]);
  });

  it('native in goes straight into a native V4 pool (moreInfo tokenIn = address(0))', async () => {
    const route = await run(
      { tokenIn: NATIVE, tokenOut: h.token('DOGE'), amountIn: units('20', 'BNB'), includedSources: ['swapav3'] },
      'simple',
    );
    assert.equal(route.value, route.amountIn);
    const [hop] = hops(route);
    assert.equal(hop.pool, pool('BNB', 'DOGE').id);
    assert.equal(hop.tokenIn, h.token('WBNB'), 'the router path carries wrapped native');
    const leg = decodeSwap(route.executorData).batches[0][0].pools[0];
    assert.equal(coder.decode(['address', 'address', 'uint24', 'int24'], leg.extraData)[0], ZERO);
  });

  it('native out comes straight out of a native V4 pool', async () => {
    const route = await run(
      { tokenIn: h.token('DOGE'), tokenOut: NATIVE, amountIn: units('40000', 'DOGE'), includedSources: ['swapav3'] },
      'simple',
    );
    const leg = decodeSwap(route.executorData).batches[0][0].pools[0];
    assert.equal(coder.decode(['address', 'address', 'uint24', 'int24'], leg.extraData)[1], ZERO);
  });

  it('a split across the V3 and the V4 pool of one pair beats each pool alone', async () => {
    const amountIn = units('300', 'ETH');
    const route = await run({ tokenIn: h.token('ETH'), tokenOut: h.token('WBNB'), amountIn, includedSources: ['swapav3'] }, 'batch');
    assert.deepEqual(
      hops(route)
        .map((x: any) => x.version)
        .sort(),
      ['v3', 'v4'],
    );
    const v3Alone = await v3PoolQuote(h.chain, 'swapav3', 'ETH', 'WBNB', 500, BigInt(amountIn));
    const v4Alone = await v4PoolQuote(h.chain, pool('ETH', 'WBNB'), h.token('ETH'), BigInt(amountIn));
    assert.ok(BigInt(route.amountOut) > v3Alone, `split ${route.amountOut} > V3 alone ${v3Alone}`);
    assert.ok(BigInt(route.amountOut) > v4Alone, `split ${route.amountOut} > V4 alone ${v4Alone}`);
  });

  it('a multihop through a V4 hop mixes V2 and V4', async () => {
    const route = await run({ tokenIn: h.token('MEME'), tokenOut: h.token('CAKE'), amountIn: units('100000', 'MEME') }, 'multihop');
    const versions = hops(route).map((x: any) => x.version);
    assert.ok(versions.includes('v4') && versions.includes('v2'), versions.join(','));
  });

  it('a native V4 pool in the middle of a multihop hands wrapped native to the next hop', async () => {
    const route = await run(
      { tokenIn: h.token('DOGE'), tokenOut: h.token('USDT'), amountIn: units('20000', 'DOGE'), includedSources: ['swapav3'] },
      'multihop',
    );
    const [first, second] = hops(route);
    assert.equal(first.pool, pool('BNB', 'DOGE').id);
    assert.equal(first.tokenOut, h.token('WBNB'));
    assert.equal(second.tokenIn, h.token('WBNB'));
  });

  it('the protocol-fee pool is quoted to the wei in both directions', async () => {
    const p = pool('BTCB', 'ETH');
    assert.ok(p.protocolFee > 0);
    for (const [from, to, amount] of [
      ['ETH', 'BTCB', '4'],
      ['BTCB', 'ETH', '0.2'],
    ] as const) {
      const route = await run({
        tokenIn: h.token(from),
        tokenOut: h.token(to),
        amountIn: units(amount, from),
        includedSources: ['swapav3'],
      });
      const hop = hops(route).find((x: any) => x.pool === p.id);
      assert.ok(hop, `${from}→${to} uses the protocol-fee pool: ${JSON.stringify(route.routeInfo)}`);
      assert.equal(BigInt(hop.amountOut), await v4PoolQuote(h.chain, p, h.token(from), BigInt(hop.amountIn)), `${from}→${to} to the wei`);
      // The fee reported is the one this direction pays: LP fee plus the protocol fee on top.
      const pf = (from === 'BTCB') === BigInt(h.token('BTCB')) < BigInt(h.token('ETH')) ? p.protocolFee & 0xfff : p.protocolFee >> 12;
      assert.equal(hop.fee, pf + 3000 - Math.floor((pf * 3000) / 1e6));
    }
  });

  it('never routes through the hooked or the dynamic-fee pool, and says why once per pool', async () => {
    const hooked = pool('WBNB', 'USDT', false);
    const dynamic = h.chain.v4Pools.filter((x) => !x.routable && x !== hooked)[0]!;
    const bodies = [
      { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units('1', 'WBNB') },
      { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units('800', 'WBNB') },
      { tokenIn: h.token('USDT'), tokenOut: NATIVE, amountIn: units('50000', 'USDT') },
      { tokenIn: NATIVE, tokenOut: h.token('USDT'), amountIn: units('5', 'BNB'), includedSources: ['swapav3'] },
    ];
    for (const body of bodies) {
      const route = (await h.build(body)).body;
      for (const hop of hops(route)) assert.ok(hop.pool !== hooked.id && hop.pool !== dynamic.id, JSON.stringify(hop));
    }
    // Both would have looked best to a router that ignored hooks and dynamic fees.
    const oneWbnb = (await h.build(bodies[0])).body;
    assert.ok((await v4PoolQuote(h.chain, dynamic, h.token('WBNB'), BigInt(units('1', 'WBNB')))) > BigInt(oneWbnb.amountOut));
    const lines = h.backend.lines.map((l) => l.line);
    for (const p of [hooked, dynamic]) assert.equal(lines.filter((l) => l.includes(`V4 pool ${p.id}`)).length, 1, `logged once: ${p.id}`);
    assert.ok(lines.some((l) => l.includes(hooked.id) && /hooks/.test(l)));
    assert.ok(lines.some((l) => l.includes(dynamic.id) && /dynamic/.test(l)));
  });

  it('the V4 pool index drops a pool whose block a reorg replaced (same block number)', async () => {
    const body = { tokenIn: h.token('MEME'), tokenOut: h.token('DOGE'), amountIn: units('1000', 'MEME'), includedSources: ['swapav3'] };
    assert.equal((await h.build(body)).status, 400, 'no MEME/DOGE pool yet');
    const before = await h.chain.snapshot();
    const added = await addV4Pool(h.chain, { a: 'MEME', b: 'DOGE', fee: 3000, tickSpacing: 60, depthUsd: 100_000 });
    const withPool = await h.build(body);
    assert.equal(withPool.status, 200, JSON.stringify(withPool.body));
    assert.equal(hops(withPool.body)[0].pool, added.id);
    const height = await h.chain.provider.getBlockNumber();
    await h.chain.revert(before);
    // Other blocks take the same numbers: the index must notice its last block is gone.
    while ((await h.chain.provider.getBlockNumber()) < height) await h.chain.provider.send('evm_mine', []);
    const after = await h.build(body);
    assert.equal(after.status, 400, JSON.stringify(after.body));
  });
});
