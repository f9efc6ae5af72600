import assert from 'node:assert/strict';
import { AbiCoder, getAddress } from 'ethers';
import { decodeSwap, decodeV3Extra, type DecodedSwap } from './decode-swap.js';

export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const isNative = (a: string) => a.toLowerCase() === NATIVE.toLowerCase();

export interface Expectations {
  adapters: Record<string, string>;
  /** Sources whose V2 adapter takes abi.encode(uint256 feeBps). */
  dynamicFeeBps?: Record<string, number>;
  wrapped: string;
  sender: string;
  recipient: string;
  deadline: number;
  slippage: number;
  /** V4 hops: the adapter and, per PoolId, the key the adapter must rebuild. */
  v4?: { adapter: string; keys: Record<string, { fee: number; tickSpacing: number; nativeIn?: boolean; nativeOut?: boolean }> };
}

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * Decodes a route-build response's executorData and checks it field by field against the
 * response's own routeInfo and amounts (what a wallet would execute vs what the user was shown).
 */
export function checkCalldata(resp: any, x: Expectations): DecodedSwap {
  const d = decodeSwap(resp.executorData);
  const paying = x.recipient.toLowerCase() !== x.sender.toLowerCase();
  assert.equal(d.fn, paying ? 'smartSwapTo' : 'smartSwapByOrderId');
  assert.equal(d.selector, paying ? '0x03b87e5f' : '0xb80c2f09');
  if (paying) assert.equal(d.receiver, getAddress(x.recipient));
  assert.equal(d.orderId, 0n);
  assert.equal(d.pmmCount, 0, 'PMM array must be empty');

  const amountIn = BigInt(resp.amountIn);
  const amountOut = BigInt(resp.amountOut);
  assert.equal(d.fromToken, getAddress(resp.tokenIn));
  assert.equal(d.toToken, getAddress(resp.tokenOut));
  assert.equal(d.fromTokenAmount, amountIn);
  assert.equal(d.minReturnAmount, (amountOut * BigInt(10_000 - x.slippage)) / 10_000n);
  assert.equal(resp.minAmountOut, d.minReturnAmount.toString());
  assert.equal(d.deadLine, BigInt(x.deadline));
  assert.equal(resp.value, isNative(resp.tokenIn) ? resp.amountIn : '0');

  const paths = resp.routeInfo.paths as any[];
  assert.equal(d.batches.length, paths.length);
  assert.equal(d.batchesAmount.length, paths.length);
  assert.equal(
    d.batchesAmount.reduce((a, b) => a + b, 0n),
    amountIn,
    'batchesAmount must sum to amountIn',
  );
  paths.forEach((path, i) => {
    assert.equal(d.batchesAmount[i], BigInt(path.amountIn));
    assert.equal(d.batches[i].length, path.hops.length);
    path.hops.forEach((hop: any, j: number) => {
      const h = d.batches[i][j];
      assert.equal(h.fromToken, getAddress(hop.tokenIn));
      assert.equal(
        h.pools.reduce((a, p) => a + p.weight, 0),
        10_000,
        'weights of a hop must sum to 10000',
      );
      assert.equal(h.pools.length, 1);
      const p = h.pools[0];
      assert.equal(p.reverse, BigInt(hop.tokenIn) > BigInt(hop.tokenOut), 'reverse bit must follow token order');
      if (hop.version === 'v4') {
        const key = x.v4?.keys[hop.pool];
        assert.ok(key && x.v4, `expected a V4 key for ${hop.pool}`);
        assert.equal(p.pool, ZERO, 'V4 rawData carries no pool address');
        assert.equal(p.adapter, getAddress(x.v4.adapter));
        assert.equal(p.assetTo, p.adapter, 'V4 assetTo is the adapter');
        const [from, to, fee, spacing] = AbiCoder.defaultAbiCoder().decode(['address', 'address', 'uint24', 'int24'], p.extraData);
        assert.equal(from, key.nativeIn ? ZERO : getAddress(hop.tokenIn));
        assert.equal(to, key.nativeOut ? ZERO : getAddress(hop.tokenOut));
        assert.equal(Number(fee), key.fee);
        assert.equal(Number(spacing), key.tickSpacing);
        return;
      }
      assert.equal(p.pool, getAddress(hop.pool));
      assert.equal(p.adapter, getAddress(x.adapters[hop.dex]));
      if (hop.version === 'v2') {
        assert.equal(p.assetTo, p.pool, 'V2 assetTo is the pair');
        const fee = x.dynamicFeeBps?.[hop.dex];
        assert.equal(p.extraData, fee === undefined ? '0x' : AbiCoder.defaultAbiCoder().encode(['uint256'], [fee]));
      } else {
        assert.equal(p.assetTo, p.adapter, 'V3 assetTo is the adapter');
        const extra = decodeV3Extra(p.extraData);
        assert.deepEqual(extra, { limit: 0n, from: getAddress(hop.tokenIn), to: getAddress(hop.tokenOut), fee: hop.fee ?? 0 });
      }
    });
    if (isNative(resp.tokenIn))
      assert.equal(d.batches[i][0].fromToken, getAddress(x.wrapped), 'native input: first hop spends the wrapped token');
    const last = path.hops[path.hops.length - 1];
    if (isNative(resp.tokenOut))
      assert.equal(getAddress(last.tokenOut), getAddress(x.wrapped), 'native output: last hop yields the wrapped token');
  });
  return d;
}
