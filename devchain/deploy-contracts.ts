import type { InterfaceAbi } from 'ethers';
import type { CompiledContracts } from './compile-contracts.js';
import { TOKEN_PLAN, V3_FEE_TIERS, WRAPPED_SYMBOL, WRAPPED_USD, type SourceName } from './pool-plan.js';
import { microUsd } from './price-math.js';
import type { TxSender } from './tx-sender.js';
import type { UniswapArtifacts } from './uniswap-artifacts.js';

export interface DevchainToken {
  symbol: string;
  name: string;
  decimals: number;
  address: string;
  /** Price the pools were seeded at, in USD. */
  usd: number;
  priceMicroUsd: bigint;
}

export interface SourceContracts {
  kind: 'v2' | 'v3';
  factory: string;
  adapter: string;
}

export interface DevchainAddresses {
  router: string;
  tokenApprove: string;
  tokenApproveProxy: string;
  wrappedNative: string;
  liquidityHelper: string;
  /** eth_call helper returning what a V3 swap would pay (see contracts/v3-quote-probe.sol). */
  v3QuoteProbe: string;
  sources: Record<SourceName, SourceContracts>;
  /** swapav3's V4 side: the PoolManager from @uniswap/v4-core's artifact and this project's adapter. */
  v4: {
    poolManager: string;
    adapter: string;
    /** eth_call helper returning what a V4 swap would pay (contracts/v4-quote-probe.sol). */
    quoteProbe: string;
    /** PoolModifyLiquidityTest: adds liquidity for the deployer. */
    liquidityRouter: string;
    /** A FeeTakingHook deployed normally; its runtime is copied to a flagged address. */
    feeHookImpl: string;
    /** Block of the PoolManager's deployment (swap.yaml v4.from_block). */
    fromBlock: number;
  };
}

/** Raw units minted to the deployer per token: enough for every pool many times over. */
const DEPLOYER_SUPPLY_WHOLE = 10n ** 12n;
/** Native coin the deployer wraps for pool liquidity (anvil starts it with more). */
export const DEPLOYER_WRAP = 200_000n * 10n ** 18n;

/**
 * Queues the deployment of tokens, the router stack, the four factories and the adapters.
 * Addresses come from nonces, so nothing here waits for the chain.
 */
export function queueContracts(
  tx: TxSender,
  compiled: CompiledContracts,
  uni: UniswapArtifacts,
): { addresses: DevchainAddresses; tokens: DevchainToken[] } {
  const c = (name: string): CompiledContracts[string] => {
    const found = compiled[name];
    if (!found) throw new Error(`compiled contract ${name} is missing`);
    return found;
  };
  const wrappedNative = tx.deploy('WrappedNative', c('WrappedNative'), ['Wrapped BNB', WRAPPED_SYMBOL]);
  tx.send('wrap native for liquidity', { to: wrappedNative, value: DEPLOYER_WRAP, gas: 100_000n });
  const tokens: DevchainToken[] = [
    {
      symbol: WRAPPED_SYMBOL,
      name: 'Wrapped BNB',
      decimals: 18,
      address: wrappedNative,
      usd: WRAPPED_USD,
      priceMicroUsd: microUsd(WRAPPED_USD),
    },
  ];
  const tokenAbi = c('TestToken').abi as InterfaceAbi;
  for (const t of TOKEN_PLAN) {
    const address = tx.deploy(`token ${t.symbol}`, c('TestToken'), [t.name, t.symbol, t.decimals], 2_000_000n);
    tx.call(`mint ${t.symbol}`, address, tokenAbi, 'mint', [tx.from, DEPLOYER_SUPPLY_WHOLE * 10n ** BigInt(t.decimals)]);
    tokens.push({ ...t, address, priceMicroUsd: microUsd(t.usd) });
  }

  const tokenApprove = tx.deploy('TokenApprove', c('TokenApprove'));
  const tokenApproveProxy = tx.deploy('TokenApproveProxy', c('TokenApproveProxy'), [tokenApprove]);
  tx.call('TokenApprove.setProxy', tokenApprove, c('TokenApprove').abi as InterfaceAbi, 'setProxy', [tokenApproveProxy]);
  const router = tx.deploy('DexRouter', c('DexRouter'), [wrappedNative, tokenApproveProxy]);
  tx.call('TokenApproveProxy.addProxy', tokenApproveProxy, c('TokenApproveProxy').abi as InterfaceAbi, 'addProxy', [router]);
  const liquidityHelper = tx.deploy('V3LiquidityHelper', c('V3LiquidityHelper'));
  const v3QuoteProbe = tx.deploy('V3QuoteProbe', c('V3QuoteProbe'));

  const v2 = (name: string): SourceContracts => ({
    kind: 'v2',
    factory: tx.deploy(`${name} factory`, uni.v2Factory, [tx.from], 5_000_000n),
    // Uniswap's 0.30 % pair is the only V2 pair in the installed packages.
    adapter: tx.deploy(`${name} adapter`, c('V2Adapter'), [30]),
  });
  const v3 = (name: 'swapav3' | 'swapb-v3'): SourceContracts => {
    const factory = tx.deploy(`${name} factory`, uni.v3Factory, [], 7_000_000n);
    for (const tier of V3_FEE_TIERS[name]) {
      if (tier.fee === 500 || tier.fee === 3000 || tier.fee === 10000) continue; // enabled by the constructor
      tx.call(`${name} enable fee ${tier.fee}`, factory, uni.v3Factory.abi as InterfaceAbi, 'enableFeeAmount', [
        tier.fee,
        tier.tickSpacing,
      ]);
    }
    return { kind: 'v3', factory, adapter: tx.deploy(`${name} adapter`, c('V3Adapter'), [factory]) };
  };
  const poolManager = tx.deploy('V4 PoolManager', uni.v4PoolManager, [tx.from], 8_000_000n);
  const v4 = {
    poolManager,
    adapter: tx.deploy('V4Adapter', c('V4Adapter'), [poolManager, wrappedNative]),
    quoteProbe: tx.deploy('V4QuoteProbe', c('V4QuoteProbe'), [poolManager]),
    liquidityRouter: tx.deploy('V4 PoolModifyLiquidityTest', uni.v4ModifyLiquidity, [poolManager]),
    feeHookImpl: tx.deploy('V4 FeeTakingHook', uni.v4FeeTakingHook, [poolManager]),
    fromBlock: 0,
  };
  const sources: Record<SourceName, SourceContracts> = {
    swapa: v2('swapa'),
    swapav3: v3('swapav3'),
    swapb: v2('swapb'),
    'swapb-v3': v3('swapb-v3'),
  };
  return {
    addresses: { router, tokenApprove, tokenApproveProxy, wrappedNative, liquidityHelper, v3QuoteProbe, sources, v4 },
    tokens,
  };
}
