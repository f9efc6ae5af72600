import { Contract, type InterfaceAbi } from 'ethers';
import { keyTuple, queueV4Pool, v4TokenResolver, type DevchainV4Pool } from '../../devchain/create-v4-pools.js';
import type { Devchain } from '../../devchain/devchain.js';
import type { V4PoolPlan } from '../../devchain/pool-plan.js';
import type { TickRange } from '../../devchain/price-math.js';
import { TxSender } from '../../devchain/tx-sender.js';
import { findPool, v3Quote } from '../chain/router-calls.js';

const ZERO = '0x0000000000000000000000000000000000000000';

/** What the PoolManager itself would pay for an exact input of `tokenIn` (wrapped = native side). */
export async function v4PoolQuote(chain: Devchain, pool: DevchainV4Pool, tokenIn: string, amountIn: bigint): Promise<bigint> {
  const probe = new Contract(chain.addresses.v4.quoteProbe, chain.compiled.V4QuoteProbe!.abi as InterfaceAbi, chain.provider);
  const asCurrency = (t: string) =>
    pool.key.currency0 === ZERO && t.toLowerCase() === chain.addresses.wrappedNative.toLowerCase() ? ZERO : t;
  const zeroForOne = asCurrency(tokenIn).toLowerCase() === pool.key.currency0.toLowerCase();
  const [a0, a1] = (await probe.getFunction('quote').staticCall(keyTuple(pool.key), zeroForOne, -amountIn)) as [bigint, bigint];
  return zeroForOne ? a1 : a0;
}

/** What a devchain V3 pool itself would pay. */
export async function v3PoolQuote(
  chain: Devchain,
  source: 'swapav3' | 'swapb-v3',
  a: string,
  b: string,
  fee: number,
  amountIn: bigint,
): Promise<bigint> {
  const pool = findPool(chain, source, a, b, fee);
  return (await v3Quote(chain, pool, chain.token(a).address, amountIn)).out;
}

/** Initializes and funds one more V4 pool (from the deployer) and waits for it. */
export async function addV4Pool(
  chain: Devchain,
  plan: V4PoolPlan,
  custom: { sqrtPrice?: bigint; positions?: (tick: number) => TickRange[] } = {},
): Promise<DevchainV4Pool> {
  const tx = await TxSender.create(chain.provider, chain.deployer);
  const pool = queueV4Pool(tx, chain.uniswap, chain.addresses, v4TokenResolver(chain.tokens, chain.addresses), plan, custom);
  await tx.confirm();
  return pool;
}
