import assert from 'node:assert/strict';
import { AbiCoder, getAddress, Interface } from 'ethers';

/**
 * An independent decoder for the router calls, written from the facts sheet's canonical signatures
 * (not the backend's ABI module), so a wrong struct layout in the encoder cannot hide.
 */
const SIGNATURES = [
  'function smartSwapByOrderId(uint256,(uint256,address,uint256,uint256,uint256),uint256[],(address[],address[],uint256[],bytes[],uint256)[][],(uint256,address,address,address,uint256,uint256,uint256,uint256,bool,bytes)[])',
  'function smartSwapTo(uint256,address,(uint256,address,uint256,uint256,uint256),uint256[],(address[],address[],uint256[],bytes[],uint256)[][],(uint256,address,address,address,uint256,uint256,uint256,uint256,bool,bytes)[])',
];
export const FACTS_INTERFACE = new Interface(SIGNATURES);

export interface DecodedPool {
  adapter: string;
  assetTo: string;
  pool: string;
  weight: number;
  reverse: boolean;
  extraData: string;
}

export interface DecodedSwap {
  fn: 'smartSwapByOrderId' | 'smartSwapTo';
  selector: string;
  orderId: bigint;
  receiver?: string;
  fromToken: string;
  toToken: string;
  fromTokenAmount: bigint;
  minReturnAmount: bigint;
  deadLine: bigint;
  batchesAmount: bigint[];
  batches: { fromToken: string; pools: DecodedPool[] }[][];
  pmmCount: number;
}

const addr = (v: bigint) => {
  assert.equal(v >> 160n, 0n, 'a uint256 token field must have zero high bits');
  return getAddress('0x' + v.toString(16).padStart(40, '0'));
};

export function decodeSwap(data: string): DecodedSwap {
  const tx = FACTS_INTERFACE.parseTransaction({ data });
  assert.ok(tx, 'calldata does not match either router entry point');
  const to = tx.name === 'smartSwapTo';
  const a = tx.args;
  const base = a[to ? 2 : 1];
  const batches = a[to ? 4 : 3] as any[][];
  return {
    fn: tx.name as DecodedSwap['fn'],
    selector: tx.selector,
    orderId: a[0],
    receiver: to ? getAddress(a[1]) : undefined,
    fromToken: addr(base[0]),
    toToken: getAddress(base[1]),
    fromTokenAmount: base[2],
    minReturnAmount: base[3],
    deadLine: base[4],
    batchesAmount: [...a[to ? 3 : 2]],
    batches: batches.map((batch) =>
      batch.map((hop: any) => {
        const [mixAdapters, assetTo, rawData, extraData, fromToken] = hop;
        assert.equal(mixAdapters.length, rawData.length, 'length mismatch in a hop');
        assert.equal(assetTo.length, rawData.length, 'length mismatch in a hop');
        assert.equal(extraData.length, rawData.length, 'length mismatch in a hop');
        return {
          fromToken: addr(fromToken),
          pools: (rawData as bigint[]).map((raw, k) => ({
            adapter: getAddress(mixAdapters[k]),
            assetTo: getAddress(assetTo[k]),
            pool: getAddress('0x' + (raw & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')),
            weight: Number((raw >> 160n) & 0xffffn),
            reverse: raw >> 255n === 1n,
            extraData: extraData[k],
          })),
        };
      }),
    ),
    pmmCount: (a[to ? 5 : 4] as unknown[]).length,
  };
}

const abi = AbiCoder.defaultAbiCoder();

/** V3 adapter moreInfo: (sqrtPriceLimitX96, abi.encode(from, to, fee)). */
export function decodeV3Extra(extra: string): { limit: bigint; from: string; to: string; fee: number } {
  const [limit, inner] = abi.decode(['uint160', 'bytes'], extra);
  const [from, to, fee] = abi.decode(['address', 'address', 'uint24'], inner);
  return { limit, from: getAddress(from), to: getAddress(to), fee: Number(fee) };
}

/** Deterministic checksummed test addresses. */
export function testAddress(n: number): string {
  return getAddress('0x' + n.toString(16).padStart(40, '0'));
}
