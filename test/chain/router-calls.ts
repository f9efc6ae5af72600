import { AbiCoder, Contract, type InterfaceAbi, type Signer } from 'ethers';
import type { Devchain } from '../../devchain/devchain.js';
import type { DevchainPool } from '../../devchain/create-pools.js';

/** Route encoding written from facts/dexrouter.md, independently of backend/swap. */

export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const coder = AbiCoder.defaultAbiCoder();

export interface Leg {
  pool: DevchainPool;
  tokenIn: string;
  tokenOut: string;
  weight: number;
}

export interface RouterPath {
  mixAdapters: string[];
  assetTo: string[];
  rawData: bigint[];
  extraData: string[];
  fromToken: bigint;
}

export function rawData(pool: string, weight: number, reverse: boolean): bigint {
  return (reverse ? 1n << 255n : 0n) | (BigInt(weight) << 160n) | BigInt(pool);
}

/** One hop: several pools swapping the same token pair, split by weight. */
export function hop(chain: Devchain, legs: Leg[]): RouterPath {
  const path: RouterPath = { mixAdapters: [], assetTo: [], rawData: [], extraData: [], fromToken: BigInt(legs[0]!.tokenIn) };
  for (const leg of legs) {
    const source = chain.addresses.sources[leg.pool.source];
    const reverse = BigInt(leg.tokenIn) > BigInt(leg.tokenOut);
    path.mixAdapters.push(source.adapter);
    path.rawData.push(rawData(leg.pool.address, leg.weight, reverse));
    if (leg.pool.kind === 'v2') {
      path.assetTo.push(leg.pool.address);
      path.extraData.push('0x');
    } else {
      path.assetTo.push(source.adapter);
      const data = coder.encode(['address', 'address', 'uint24'], [leg.tokenIn, leg.tokenOut, leg.pool.fee]);
      path.extraData.push(coder.encode(['uint160', 'bytes'], [0n, data]));
    }
  }
  return path;
}

export interface BaseRequest {
  fromToken: bigint;
  toToken: string;
  fromTokenAmount: bigint;
  minReturnAmount: bigint;
  deadLine: bigint;
}

export function baseRequest(fromToken: string, toToken: string, amount: bigint, overrides: Partial<BaseRequest> = {}): BaseRequest {
  return {
    fromToken: BigInt(fromToken),
    toToken,
    fromTokenAmount: amount,
    minReturnAmount: 1n,
    deadLine: BigInt(Math.floor(Date.now() / 1000) + 3600),
    ...overrides,
  };
}

export function routerContract(chain: Devchain, signer: Signer): Contract {
  return new Contract(chain.addresses.router, chain.compiled.DexRouter!.abi as InterfaceAbi, signer);
}

export function findPool(chain: Devchain, source: DevchainPool['source'], a: string, b: string, fee?: number): DevchainPool {
  const [x, y] = [chain.token(a).address, chain.token(b).address];
  const pool = chain.pools.find(
    (p) =>
      p.source === source &&
      (fee === undefined || p.fee === fee) &&
      ((p.token0 === x && p.token1 === y) || (p.token0 === y && p.token1 === x)),
  );
  if (!pool) throw new Error(`no ${source} pool ${a}/${b} ${fee ?? ''}`);
  return pool;
}

/** Uniswap V2 output for `amountIn`, from the pair's current reserves. */
export async function v2Out(chain: Devchain, pool: DevchainPool, tokenIn: string, amountIn: bigint, feeBps = 30n): Promise<bigint> {
  const pair = new Contract(pool.address, chain.uniswap.v2Pair.abi as InterfaceAbi, chain.provider);
  const [r0, r1] = (await pair.getFunction('getReserves').staticCall()) as [bigint, bigint];
  const [rIn, rOut] = tokenIn === pool.token0 ? [r0, r1] : [r1, r0];
  const inWithFee = amountIn * (10000n - feeBps);
  return (inWithFee * rOut) / (rIn * 10000n + inWithFee);
}

/** What the V3 pool itself would pay, and the tick it would move to (eth_call). */
export async function v3Quote(
  chain: Devchain,
  pool: DevchainPool,
  tokenIn: string,
  amountIn: bigint,
): Promise<{ out: bigint; tickBefore: bigint; tickAfter: bigint }> {
  const probe = new Contract(chain.addresses.v3QuoteProbe, chain.compiled.V3QuoteProbe!.abi as InterfaceAbi, chain.provider);
  const v3 = new Contract(pool.address, chain.uniswap.v3Pool.abi as InterfaceAbi, chain.provider);
  const slot0 = (await v3.getFunction('slot0').staticCall()) as unknown as [bigint, bigint];
  const zeroForOne = tokenIn === pool.token0;
  const [a0, a1, , tickAfter] = (await probe.getFunction('quote').staticCall(pool.address, zeroForOne, amountIn)) as [
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  return { out: -(zeroForOne ? a1 : a0), tickBefore: slot0[1], tickAfter };
}

export function erc20(chain: Devchain, address: string, signer?: Signer): Contract {
  return new Contract(address, chain.compiled.TestToken!.abi as InterfaceAbi, signer ?? chain.provider);
}

export async function balanceOf(chain: Devchain, token: string, who: string): Promise<bigint> {
  if (token === NATIVE) return chain.provider.getBalance(who);
  return (await erc20(chain, token).getFunction('balanceOf').staticCall(who)) as bigint;
}
