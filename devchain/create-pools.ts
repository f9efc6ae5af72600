import { AbiCoder, getCreate2Address, type InterfaceAbi, keccak256, MaxUint256, solidityPacked } from 'ethers';
import type { CompiledContracts } from './compile-contracts.js';
import type { DevchainAddresses, DevchainToken } from './deploy-contracts.js';
import { V2_POOLS, V3_FEE_TIERS, V3_POOLS, type SourceName } from './pool-plan.js';
import { approxTick, isqrt, positionsAround, rawAmountForUsd, sqrtPriceX96, type TickRange } from './price-math.js';
import type { TxSender } from './tx-sender.js';
import type { UniswapArtifacts } from './uniswap-artifacts.js';

export interface DevchainPool {
  source: SourceName;
  kind: 'v2' | 'v3';
  address: string;
  token0: string;
  token1: string;
  /** V2: fee in bps (30). V3: the pool's fee in hundredths of a bip (500 = 0.05 %). */
  fee: number;
  tickSpacing?: number;
  positions?: TickRange[];
}

function sortPair(a: DevchainToken, b: DevchainToken): [DevchainToken, DevchainToken] {
  return a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
}

function skewed(t: DevchainToken, skew: number | undefined): DevchainToken {
  if (!skew || skew === 1) return t;
  return { ...t, priceMicroUsd: (t.priceMicroUsd * BigInt(Math.round(skew * 1e6))) / 1_000_000n };
}

/** Queues pair/pool creation and liquidity; pool addresses are CREATE2-derived. */
export function queuePools(
  tx: TxSender,
  compiled: CompiledContracts,
  uni: UniswapArtifacts,
  addresses: DevchainAddresses,
  tokens: DevchainToken[],
): DevchainPool[] {
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const token = (s: string): DevchainToken => {
    const t = bySymbol.get(s);
    if (!t) throw new Error(`pool plan names unknown token ${s}`);
    return t;
  };
  const tokenAbi = compiled.TestToken!.abi as InterfaceAbi;
  const pools: DevchainPool[] = [];

  for (const plan of V2_POOLS) {
    const a = skewed(token(plan.a), plan.skew);
    const b = token(plan.b);
    const [t0, t1] = sortPair(a, b);
    const factory = addresses.sources[plan.source].factory;
    const address = getCreate2Address(
      factory,
      keccak256(solidityPacked(['address', 'address'], [t0.address, t1.address])),
      uni.v2PairInitCodeHash,
    );
    tx.call(`${plan.source} createPair ${plan.a}/${plan.b}`, factory, uni.v2Factory.abi as InterfaceAbi, 'createPair', [
      t0.address,
      t1.address,
    ]);
    for (const t of [t0, t1]) {
      const amount = rawAmountForUsd(plan.depthUsd, t.priceMicroUsd, t.decimals);
      tx.call(`fund pair ${plan.a}/${plan.b}`, t.address, tokenAbi, 'transfer', [address, amount], 100_000n);
    }
    tx.call(`mint pair ${plan.a}/${plan.b}`, address, uni.v2Pair.abi as InterfaceAbi, 'mint', [tx.from], 300_000n);
    pools.push({ source: plan.source, kind: 'v2', address, token0: t0.address, token1: t1.address, fee: 30 });
  }

  for (const t of tokens) {
    tx.call(`approve helper ${t.symbol}`, t.address, tokenAbi, 'approve', [addresses.liquidityHelper, MaxUint256], 100_000n);
  }
  const coder = AbiCoder.defaultAbiCoder();
  for (const plan of V3_POOLS) {
    const a = skewed(token(plan.a), plan.skew);
    const b = token(plan.b);
    const [t0, t1] = sortPair(a, b);
    const tier = V3_FEE_TIERS[plan.source].find((x) => x.fee === plan.fee);
    if (!tier) throw new Error(`fee ${plan.fee} is not a tier of ${plan.source}`);
    const factory = addresses.sources[plan.source].factory;
    const address = getCreate2Address(
      factory,
      keccak256(coder.encode(['address', 'address', 'uint24'], [t0.address, t1.address, plan.fee])),
      uni.v3PoolInitCodeHash,
    );
    const label = `${plan.source} ${plan.a}/${plan.b} ${plan.fee}`;
    tx.call(
      `createPool ${label}`,
      factory,
      uni.v3Factory.abi as InterfaceAbi,
      'createPool',
      [t0.address, t1.address, plan.fee],
      6_000_000n,
    );
    const sqrtPrice = sqrtPriceX96(t0, t1);
    tx.call(`initialize ${label}`, address, uni.v3Pool.abi as InterfaceAbi, 'initialize', [sqrtPrice], 200_000n);
    // Liquidity of a full-range pool holding depthUsd on each side: sqrt(x * y).
    const base = isqrt(
      rawAmountForUsd(plan.depthUsd, t0.priceMicroUsd, t0.decimals) * rawAmountForUsd(plan.depthUsd, t1.priceMicroUsd, t1.decimals),
    );
    const positions = positionsAround(approxTick(sqrtPrice), tier.tickSpacing, base);
    for (const p of positions) {
      tx.call(
        `mint ${label} [${p.lower},${p.upper}]`,
        addresses.liquidityHelper,
        compiled.V3LiquidityHelper!.abi as InterfaceAbi,
        'mint',
        [address, p.lower, p.upper, p.liquidity],
        1_000_000n,
      );
    }
    pools.push({
      source: plan.source,
      kind: 'v3',
      address,
      token0: t0.address,
      token1: t1.address,
      fee: plan.fee,
      tickSpacing: tier.tickSpacing,
      positions,
    });
  }
  return pools;
}
