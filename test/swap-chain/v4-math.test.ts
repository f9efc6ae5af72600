import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { JsonRpcClient } from '../../backend/swap/onchain/json-rpc.js';
import { MulticallClient } from '../../backend/swap/onchain/multicall.js';
import { PoolReader, type BlockRef, type PoolRef } from '../../backend/swap/onchain/pool-reader.js';
import { getSqrtRatioAtTick, MAX_TICK, MIN_TICK } from '../../backend/swap/onchain/v3-math.js';
import { MissingTickData, quoteV3ExactIn, type V3PoolState } from '../../backend/swap/onchain/v3-quote.js';
import { addV4Pool, v4PoolQuote } from './v4-helpers.js';

/**
 * The builder's V4 quote (state read through extsload by PoolReader, V3 step math with the V4 fee
 * rule) against what the PoolManager itself pays, for random pools: fee, tick spacing, price,
 * liquidity ranges, protocol fee, direction and size all drawn by fast-check.
 */
describe('V4 quotes match the PoolManager to the wei on random pools', () => {
  let chain: Devchain;
  before(async () => {
    chain = await startDevchain();
  });
  after(async () => chain?.stop());

  async function builderQuote(ref: PoolRef, zeroForOne: boolean, amount: bigint) {
    const rpc = new JsonRpcClient(chain.rpcUrl);
    const reader = new PoolReader(new MulticallClient(rpc));
    const head = (await rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]))!;
    const block: BlockRef = { tag: head.number, hash: head.hash };
    const signal = new AbortController().signal;
    const states = await reader.readStates([ref], block, signal);
    const state = states.get(ref.address)!.state as V3PoolState;
    for (let i = 0; i < 40; i++) {
      try {
        return quoteV3ExactIn(state, amount, zeroForOne);
      } catch (err) {
        if (!(err instanceof MissingTickData)) throw err;
        const words = [...state.bitmap.keys()];
        const dir = err.word < Math.min(...words) ? -1 : 1;
        const from = dir < 0 ? Math.min(...words) - 1 : Math.max(...words) + 1;
        await reader.loadWords(
          Array.from({ length: 512 }, (_, k) => ({ pool: ref.address, state, word: from + dir * k })),
          block,
          signal,
        );
      }
    }
    throw new Error('quote walked too far');
  }

  it('matches for random fee, tick spacing, price, ranges, protocol fee, direction and amount', async () => {
    const eth = chain.token('ETH').address.toLowerCase();
    const usdt = chain.token('USDT').address.toLowerCase();
    const pool = fc.record({
      fee: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(100, 500, 3000, 10_000)),
      tickSpacing: fc.integer({ min: 1, max: 400 }),
      tick: fc.integer({ min: -60_000, max: 60_000 }),
      fraction: fc.integer({ min: 0, max: 999 }),
      ranges: fc.array(
        fc.record({
          below: fc.integer({ min: 0, max: 40 }),
          above: fc.integer({ min: 1, max: 40 }),
          liquidity: fc.bigInt({ min: 10n ** 12n, max: 10n ** 21n }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      protocolFee: fc.option(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 })), { nil: undefined }),
      zeroForOne: fc.boolean(),
      amount: fc.bigInt({ min: 1n, max: 10n ** 22n }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(pool, async (p) => {
        const snap = await chain.snapshot();
        try {
          const lo = getSqrtRatioAtTick(p.tick);
          const sqrtPrice = lo + ((getSqrtRatioAtTick(p.tick + 1) - lo) * BigInt(p.fraction)) / 1000n;
          const align = (t: number) => Math.floor(t / p.tickSpacing) * p.tickSpacing;
          const minUsable = Math.ceil(MIN_TICK / p.tickSpacing) * p.tickSpacing;
          const maxUsable = align(MAX_TICK);
          const added = await addV4Pool(
            chain,
            { a: 'ETH', b: 'USDT', fee: p.fee, tickSpacing: p.tickSpacing, depthUsd: 1, protocolFee: p.protocolFee },
            {
              sqrtPrice,
              positions: () =>
                p.ranges.map((r) => ({
                  lower: Math.max(minUsable, align(p.tick) - r.below * p.tickSpacing),
                  upper: Math.min(maxUsable, align(p.tick) + r.above * p.tickSpacing),
                  liquidity: r.liquidity,
                })),
            },
          );
          const [token0, token1] = BigInt(eth) < BigInt(usdt) ? [eth, usdt] : [usdt, eth];
          const ref: PoolRef = {
            source: 'swapav3',
            kind: 'v4',
            address: added.id,
            token0,
            token1,
            fee: p.fee,
            v4: { manager: chain.addresses.v4.poolManager.toLowerCase(), currency0: token0, currency1: token1, tickSpacing: p.tickSpacing },
          };
          const ours = await builderQuote(ref, p.zeroForOne, p.amount);
          const tokenIn = p.zeroForOne ? token0 : token1;
          const theirs = await v4PoolQuote(chain, added, tokenIn, p.amount);
          assert.equal(ours.amountOut, theirs, `fee ${p.fee} spacing ${p.tickSpacing} pf ${p.protocolFee} amount ${p.amount}`);
          runs += 1;
        } finally {
          await chain.revert(snap);
        }
      }),
      { numRuns: 60, seed: 17 },
    );
    assert.equal(runs, 60);
  });
});
