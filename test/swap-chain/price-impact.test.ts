import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, parseUnits } from 'ethers';
import { SwapChainHarness } from './chain-harness.js';

const PAIR_ABI = ['function getReserves() view returns (uint112,uint112,uint32)', 'function token0() view returns (address)'];

describe('price impact, maxPriceImpactBps and excludePools on the devchain', () => {
  let h: SwapChainHarness;
  before(async () => {
    h = await SwapChainHarness.start();
  });
  after(async () => h?.stop());
  const units = (amount: string, symbol: string) => parseUnits(amount, h.chain.token(symbol).decimals).toString();

  it('priceImpactBps of a one-pool V2 route matches the hand computation from its reserves', async () => {
    const amountIn = units('20000', 'CAKE');
    const res = await h.build({ tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn, includedSources: ['swapb'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const hop = res.body.routeInfo.paths[0].hops[0];
    const pair = new Contract(hop.pool, PAIR_ABI, h.chain.provider);
    const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
    const token0 = ((await pair.getFunction('token0')()) as string).toLowerCase();
    const [rin, rout] = token0 === h.token('CAKE').toLowerCase() ? [r0, r1] : [r1, r0];
    // At the mid price amountIn buys amountIn × rout / rin; the pool paid amountOut.
    const ideal = (Number(amountIn) * Number(rout)) / Number(rin);
    const expected = Math.round((1 - Number(res.body.amountOut) / ideal) * 10_000);
    assert.equal(res.body.priceImpactBps, expected);
    assert.ok(expected > 30, `a 20,000 CAKE trade moves the price beyond the 0.30 % fee (got ${expected} bps)`);
  });

  it('refuses a route above maxPriceImpactBps with 400 price_impact_too_high naming the figure', async () => {
    const body = { tokenIn: h.token('CAKE'), tokenOut: h.token('USDT'), amountIn: units('20000', 'CAKE'), includedSources: ['swapb'] };
    const impact = (await h.build(body)).body.priceImpactBps as number;
    const refused = await h.build({ ...body, maxPriceImpactBps: impact - 1 });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'price_impact_too_high');
    assert.equal(refused.body.error.field, 'maxPriceImpactBps');
    assert.match(refused.body.error.message, new RegExp(`${impact} bps`));
    assert.equal((await h.build({ ...body, maxPriceImpactBps: impact })).status, 200);
    const bad = await h.build({ ...body, maxPriceImpactBps: 10_001 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'maxPriceImpactBps');
  });

  it('excludePools keeps the route off the listed pools; the list is capped at 20', async () => {
    const body = { tokenIn: h.token('WBNB'), tokenOut: h.token('USDT'), amountIn: units('800', 'WBNB') };
    const full = (await h.build(body)).body;
    const used: string[] = full.routeInfo.paths.flatMap((p: any) => p.hops.map((x: any) => x.pool));
    const excluded = used[0];
    const res = await h.build({ ...body, excludePools: [excluded] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const now: string[] = res.body.routeInfo.paths.flatMap((p: any) => p.hops.map((x: any) => x.pool.toLowerCase()));
    assert.ok(!now.includes(excluded.toLowerCase()), `${excluded} not used`);
    const { received } = await h.execute(res.body);
    assert.equal(received, BigInt(res.body.amountOut));
    const many = Array.from({ length: 21 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const tooMany = await h.build({ ...body, excludePools: many });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.field, 'excludePools');
    const malformed = await h.build({ ...body, excludePools: ['0x1234'] });
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.error.message, /excludePools/);
  });
});
