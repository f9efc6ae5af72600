import { AbiCoder, Interface, type InterfaceAbi, keccak256, MaxUint256, type JsonRpcProvider, toQuantity } from 'ethers';
import type { CompiledContracts } from './compile-contracts.js';
import type { DevchainAddresses, DevchainToken } from './deploy-contracts.js';
import { DYNAMIC_FEE_HOOK_ADDRESS, DYNAMIC_LP_FEE, FEE_TAKING_HOOK_ADDRESS, V4_POOLS, type V4PoolPlan } from './pool-plan.js';
import { approxTick, isqrt, positionsAround, rawAmountForUsd, sqrtPriceX96, type TickRange } from './price-math.js';
import type { TxSender } from './tx-sender.js';
import type { UniswapArtifacts } from './uniswap-artifacts.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const DYNAMIC_FEE_FLAG = 0x800000;
const coder = AbiCoder.defaultAbiCoder();
const MODIFY = 'modifyLiquidity((address,address,uint24,int24,address),(int24,int24,int256,bytes32),bytes)';

export interface V4Key {
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
}

export interface DevchainV4Pool {
  /** Symbols as planned ('BNB' = native). */
  a: string;
  b: string;
  id: string;
  key: V4Key;
  /** Plain pools are routable; hooked and dynamic-fee ones must never be used. */
  routable: boolean;
  protocolFee: number;
  positions: TickRange[];
}

export const keyTuple = (k: V4Key) => [k.currency0, k.currency1, k.fee, k.tickSpacing, k.hooks];

export function poolId(key: V4Key): string {
  return keccak256(
    coder.encode(['address', 'address', 'uint24', 'int24', 'address'], [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks]),
  );
}

/**
 * Initializes the V4 pools of the plan in the PoolManager and adds liquidity in several ranges
 * (through v4-core's PoolModifyLiquidityTest). The fee-taking hook's runtime (its immutable
 * already names this PoolManager) is copied to an address whose low bits grant afterSwap and
 * afterSwapReturnsDelta; the dynamic-fee pool's LP fee is set by impersonating its hook address.
 */
export async function createV4Pools(
  provider: JsonRpcProvider,
  tx: TxSender,
  compiled: CompiledContracts,
  uni: UniswapArtifacts,
  addresses: DevchainAddresses,
  tokens: DevchainToken[],
): Promise<DevchainV4Pool[]> {
  const v4 = addresses.v4;
  await provider.send('anvil_setCode', [FEE_TAKING_HOOK_ADDRESS, await provider.getCode(v4.feeHookImpl)]);
  const token = v4TokenResolver(tokens, addresses);
  const tokenAbi = compiled.TestToken!.abi as InterfaceAbi;
  for (const t of tokens)
    tx.call(`approve V4 liquidity ${t.symbol}`, t.address, tokenAbi, 'approve', [v4.liquidityRouter, MaxUint256], 100_000n);
  const managerAbi = uni.v4PoolManager.abi as InterfaceAbi;
  tx.call('V4 protocol fee controller', v4.poolManager, managerAbi, 'setProtocolFeeController', [tx.from], 200_000n);
  const pools = V4_POOLS.map((plan) => queueV4Pool(tx, uni, addresses, token, plan));
  await tx.confirm();
  const dynamic = pools.find((p) => p.key.fee === DYNAMIC_FEE_FLAG);
  if (dynamic) await setDynamicFee(provider, managerAbi, v4.poolManager, dynamic.key);
  return pools;
}

/** Symbol → token for V4 plans; 'BNB' is the native currency (address 0) priced as WBNB. */
export function v4TokenResolver(tokens: DevchainToken[], addresses: DevchainAddresses): (symbol: string) => DevchainToken {
  const wrapped = tokens.find((t) => t.address === addresses.wrappedNative)!;
  return (s) => {
    if (s === 'BNB') return { ...wrapped, symbol: 'BNB', address: ZERO };
    const t = tokens.find((x) => x.symbol === s);
    if (!t) throw new Error(`V4 pool plan names unknown token ${s}`);
    return t;
  };
}

/**
 * Queues one pool: initialize at the plan's price (or `sqrtPrice`), liquidity in ranges around it
 * (or `positions`), and its protocol fee. The deployer must have approved the liquidity helper.
 */
export function queueV4Pool(
  tx: TxSender,
  uni: UniswapArtifacts,
  addresses: DevchainAddresses,
  token: (symbol: string) => DevchainToken,
  plan: V4PoolPlan,
  custom: { sqrtPrice?: bigint; positions?: (tick: number) => TickRange[] } = {},
): DevchainV4Pool {
  const v4 = addresses.v4;
  const managerAbi = uni.v4PoolManager.abi as InterfaceAbi;
  const modifyIface = new Interface(uni.v4ModifyLiquidity.abi as InterfaceAbi);
  let a = token(plan.a);
  if (plan.skew) a = { ...a, priceMicroUsd: (a.priceMicroUsd * BigInt(Math.round(plan.skew * 1e6))) / 1_000_000n };
  const b = token(plan.b);
  const [t0, t1] = BigInt(a.address) < BigInt(b.address) ? [a, b] : [b, a];
  const hooks = plan.feeTakingHook ? FEE_TAKING_HOOK_ADDRESS : plan.fee === 'dynamic' ? DYNAMIC_FEE_HOOK_ADDRESS : ZERO;
  const key: V4Key = {
    currency0: t0.address,
    currency1: t1.address,
    fee: plan.fee === 'dynamic' ? DYNAMIC_FEE_FLAG : plan.fee,
    tickSpacing: plan.tickSpacing,
    hooks,
  };
  const label = `V4 ${plan.a}/${plan.b} ${plan.fee}/${plan.tickSpacing}`;
  const sqrtPrice = custom.sqrtPrice ?? sqrtPriceX96(t0, t1);
  tx.call(`initialize ${label}`, v4.poolManager, managerAbi, 'initialize', [keyTuple(key), sqrtPrice], 500_000n);
  const base = isqrt(
    rawAmountForUsd(plan.depthUsd, t0.priceMicroUsd, t0.decimals) * rawAmountForUsd(plan.depthUsd, t1.priceMicroUsd, t1.decimals),
  );
  const positions = custom.positions
    ? custom.positions(approxTick(sqrtPrice))
    : positionsAround(approxTick(sqrtPrice), plan.tickSpacing, base);
  // Native liquidity is paid with msg.value; what a position does not need stays in the helper.
  const value = t0.address === ZERO ? rawAmountForUsd(plan.depthUsd * 2, t0.priceMicroUsd, 18) : 0n;
  for (const p of positions) {
    tx.send(`liquidity ${label} [${p.lower},${p.upper}]`, {
      to: v4.liquidityRouter,
      data: modifyIface.encodeFunctionData(MODIFY, [keyTuple(key), [p.lower, p.upper, p.liquidity, `0x${'0'.repeat(64)}`], '0x']),
      value,
      gas: 1_500_000n,
    });
  }
  const protocolFee = plan.protocolFee ? plan.protocolFee[0] | (plan.protocolFee[1] << 12) : 0;
  if (protocolFee) tx.call(`protocol fee ${label}`, v4.poolManager, managerAbi, 'setProtocolFee', [keyTuple(key), protocolFee], 200_000n);
  return { a: plan.a, b: plan.b, id: poolId(key), key, routable: hooks === ZERO, protocolFee, positions };
}

/** Only the pool's hook may set a dynamic LP fee: act as the hook address for one transaction. */
async function setDynamicFee(provider: JsonRpcProvider, abi: InterfaceAbi, manager: string, key: V4Key): Promise<void> {
  await provider.send('anvil_impersonateAccount', [key.hooks]);
  await provider.send('anvil_setBalance', [key.hooks, toQuantity(10n ** 18n)]);
  const hash = (await provider.send('eth_sendTransaction', [
    {
      from: key.hooks,
      to: manager,
      data: new Interface(abi).encodeFunctionData('updateDynamicLPFee', [keyTuple(key), DYNAMIC_LP_FEE]),
      gas: toQuantity(200_000n),
      gasPrice: toQuantity(10_000_000_000n),
    },
  ])) as string;
  await provider.send('anvil_stopImpersonatingAccount', [key.hooks]);
  for (let i = 0; i < 500; i++) {
    const r = (await provider.send('eth_getTransactionReceipt', [hash])) as { status: string } | null;
    if (r) {
      if (r.status !== '0x1') throw new Error('devchain: setting the dynamic LP fee reverted');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('devchain: the dynamic LP fee transaction was never mined');
}
