import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AbiCoder } from 'ethers';
import { encodeSwap, type RouterPlan } from '../../backend/swap/calldata.js';
import { ROUTER_INTERFACE } from '../../backend/swap/router-abi.js';
import { address, bytes, encode, uint } from '../../backend/swap/abi-encoder.js';

const hexAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
const amount = fc.bigInt({ min: 1n, max: (1n << 200n) - 1n });
const extraData = fc.uint8Array({ maxLength: 100 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
const pool = fc.record({ adapter: hexAddress, assetTo: hexAddress, pool: hexAddress, reverse: fc.boolean(), extraData });

/** Plans of 1-4 batches of 1-3 hops, each hop 1-3 pools with weights summing to 10000. */
const plan: fc.Arbitrary<RouterPlan> = fc
  .array(
    fc.array(fc.record({ fromToken: hexAddress, pools: fc.array(pool, { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
    { minLength: 1, maxLength: 4 },
  )
  .chain((batches) =>
    fc
      .record({
        fromToken: hexAddress,
        toToken: hexAddress,
        minReturn: amount,
        deadline: fc.integer({ min: 0, max: 2 ** 40 }),
        batchesAmount: fc.tuple(...batches.map(() => amount)),
      })
      .map((r) => ({
        ...r,
        amountIn: r.batchesAmount.reduce((a, b) => a + b, 0n),
        batchesAmount: [...r.batchesAmount],
        batches: batches.map((b) =>
          b.map((hop) => ({
            fromToken: hop.fromToken,
            pools: hop.pools.map((p, i) => ({ ...p, weight: i === 0 ? 10_000 - (hop.pools.length - 1) * 100 : 100 })),
          })),
        ),
      })),
  );

/** The same call through ethers' Interface: the reference encoding. */
function ethersEncode(p: RouterPlan, recipient?: string): string {
  const baseRequest = [BigInt(p.fromToken), p.toToken, p.amountIn, p.minReturn, BigInt(p.deadline)];
  const batches = p.batches.map((b) =>
    b.map((hop) => [
      hop.pools.map((x) => x.adapter),
      hop.pools.map((x) => x.assetTo),
      hop.pools.map((x) => (x.reverse ? 1n << 255n : 0n) | (BigInt(x.weight) << 160n) | BigInt(x.pool)),
      hop.pools.map((x) => x.extraData),
      BigInt(hop.fromToken),
    ]),
  );
  return recipient
    ? ROUTER_INTERFACE.encodeFunctionData('smartSwapTo', [0n, recipient, baseRequest, p.batchesAmount, batches, []])
    : ROUTER_INTERFACE.encodeFunctionData('smartSwapByOrderId', [0n, baseRequest, p.batchesAmount, batches, []]);
}

test('router calldata is byte-identical to ethers for generated plans (both entry points)', () => {
  const sender = '0x1111111111111111111111111111111111111111';
  fc.assert(
    fc.property(plan, hexAddress, (p, other) => {
      assert.equal(encodeSwap(p, { sender, recipient: sender }), ethersEncode(p));
      if (other !== sender) assert.equal(encodeSwap(p, { sender, recipient: other }), ethersEncode(p, other));
    }),
    { seed: 20261121, numRuns: 200 },
  );
});

test('abi.encode of words and bytes matches ethers', () => {
  const coder = AbiCoder.defaultAbiCoder();
  fc.assert(
    fc.property(hexAddress, fc.integer({ min: 0, max: 2 ** 24 - 1 }), extraData, (a, fee, data) => {
      assert.equal(encode([address(a), uint(fee), bytes(data)]), coder.encode(['address', 'uint24', 'bytes'], [a, fee, data]));
    }),
    { seed: 7, numRuns: 200 },
  );
  assert.throws(() => uint(-1n), RangeError);
  assert.throws(() => uint(1n << 256n), RangeError);
  assert.throws(() => address('0x12'), TypeError);
});
