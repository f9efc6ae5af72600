import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RpcCall } from '../../backend/swap/onchain/json-rpc.js';
import type { MulticallClient } from '../../backend/swap/onchain/multicall.js';
import { PoolReader } from '../../backend/swap/onchain/pool-reader.js';
import { getSqrtRatioAtTick } from '../../backend/swap/onchain/v3-math.js';
import { MissingTickData, quoteV3ExactIn, type V3PoolState } from '../../backend/swap/onchain/v3-quote.js';

const hex = (...words: bigint[]) => `0x${words.map((w) => BigInt.asUintN(256, w).toString(16).padStart(64, '0')).join('')}`;
const E18 = 10n ** 18n;

/** A node whose answers the test releases one batch at a time. */
class HeldNode {
  pending: { calls: RpcCall[]; answer: (results: string[]) => void }[] = [];
  batch = (calls: RpcCall[]) => new Promise<string[]>((answer) => this.pending.push({ calls, answer }));
  async next(): Promise<{ calls: RpcCall[]; answer: (results: string[]) => void }> {
    while (this.pending.length === 0) await new Promise((r) => setImmediate(r));
    return this.pending.shift()!;
  }
}

/** tick 0, spacing 1, words -1..7 but 2 read and empty; word 2 has one initialized tick (512) adding liquidity. */
function pool(): V3PoolState {
  return {
    sqrtPriceX96: getSqrtRatioAtTick(0),
    tick: 0,
    liquidity: 10n ** 20n,
    fee: 500,
    tickSpacing: 1,
    bitmap: new Map([-1, 0, 1, 3, 4, 5, 6, 7].map((w) => [w, 0n])),
    liquidityNet: new Map(),
  };
}

describe('reading more bitmap words while other requests quote the same block', () => {
  it('a word becomes visible only together with the liquidity of its ticks', async () => {
    const node = new HeldNode();
    const reader = new PoolReader(node as unknown as MulticallClient);
    const shared = pool();
    const loading = reader.loadWords(
      [{ pool: '0x00000000000000000000000000000000000000aa', state: shared, word: 2 }],
      { tag: '0x10', hash: '0xh' },
      AbortSignal.timeout(5_000),
    );
    (await node.next()).answer([hex(1n)]); // word 2: bit 0 set, tick 512
    const ticks = await node.next();
    assert.equal(ticks.calls.length, 1, 'the initialized tick is read');
    // Meanwhile another request quotes through word 2: it must ask for the word, never cross tick
    // 512 with an unknown (zero) liquidity change and keep that wrong step.
    const big = 10n ** 19n;
    assert.throws(() => quoteV3ExactIn(shared, big, false), MissingTickData);
    ticks.answer([hex(5n * E18, 5n * 10n ** 19n, 0n, 0n, 0n, 0n, 0n, 1n)]);
    await loading;
    assert.equal(shared.liquidityNet.get(512), 5n * 10n ** 19n);
    // The same quote on a state built complete from the start: identical.
    const complete = pool();
    complete.bitmap.set(2, 1n);
    complete.liquidityNet.set(512, 5n * 10n ** 19n);
    assert.deepEqual(quoteV3ExactIn(shared, big, false), quoteV3ExactIn(complete, big, false));
    assert.equal(quoteV3ExactIn(shared, big, false).ticksCrossed, 1);
  });
});
