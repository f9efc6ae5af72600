import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { JsonRpcProvider, type InterfaceAbi, type TransactionReceipt } from 'ethers';
import { writeFileAtomic } from '../backend/data/atomic-write.js';
import { MULTICALL3 } from '../backend/swap/onchain/multicall.js';
import { startAnvil } from './anvil.js';
import { compileContracts, type CompiledContracts } from './compile-contracts.js';
import { queueContracts, type DevchainAddresses, type DevchainToken } from './deploy-contracts.js';
import { queuePools, type DevchainPool } from './create-pools.js';
import { createV4Pools, type DevchainV4Pool } from './create-v4-pools.js';
import { rawAmountForUsd } from './price-math.js';
import { buildSwapYaml, type SwapYaml } from './swap-yaml.js';
import { TxSender } from './tx-sender.js';
import { loadUniswapArtifacts, type UniswapArtifacts } from './uniswap-artifacts.js';

/** anvil's default accounts, derived from its public test mnemonic. Never use them on a real chain. */
export const ANVIL_ACCOUNTS = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
] as const;

export interface DevchainOptions {
  /** Write swap.yaml into this directory (created if missing). */
  dataDir?: string;
  /** Account that receives test tokens (default anvil account #1); USD worth per token. */
  fundAccount?: string;
  fundUsd?: number;
}

export interface Devchain {
  rpcUrl: string;
  chainId: number;
  provider: JsonRpcProvider;
  deployer: string;
  user: { address: string; privateKey: string };
  addresses: DevchainAddresses;
  tokens: DevchainToken[];
  pools: DevchainPool[];
  /** V4 pools in the PoolManager (swapav3), including the hooked and dynamic-fee ones. */
  v4Pools: DevchainV4Pool[];
  swapYaml: { object: SwapYaml; text: string };
  swapYamlPath?: string;
  compiled: CompiledContracts;
  uniswap: UniswapArtifacts;
  token(symbol: string): DevchainToken;
  /**
   * The receipt of a sent transaction. Use instead of tx.wait(): ethers' block poller
   * ignores block numbers it has seen, so it stalls after evm_revert rewinds the chain.
   */
  mined(hash: string): Promise<TransactionReceipt>;
  snapshot(): Promise<string>;
  revert(id: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts anvil (chain id 56), deploys the router stack, four DEX sources and seeded pools. */
export async function startDevchain(options: DevchainOptions = {}): Promise<Devchain> {
  const compiled = compileContracts();
  const uniswap = loadUniswapArtifacts();
  const node = await startAnvil({ chainId: 56 });
  const provider = new JsonRpcProvider(
    node.rpcUrl,
    { chainId: node.chainId, name: 'devchain' },
    {
      staticNetwork: true,
      batchMaxCount: 50,
      batchStallTime: 0,
      // Balances are read right after each swap: a cached answer would be stale.
      cacheTimeout: -1,
    },
  );
  try {
    await provider.send('anvil_setBalance', [ANVIL_ACCOUNTS[0].address, '0x' + (10n ** 24n).toString(16)]);
    const tx = await TxSender.create(provider, ANVIL_ACCOUNTS[0].address);
    const { addresses, tokens } = queueContracts(tx, compiled, uniswap);
    const pools = queuePools(tx, compiled, uniswap, addresses, tokens);
    // Multicall3 at its canonical address, as on BNB Chain and Ethereum: deployed normally, its runtime copied.
    const multicallImpl = tx.deploy('Multicall3', compiled.Multicall3!, []);
    const user = options.fundAccount ?? ANVIL_ACCOUNTS[1].address;
    const fundUsd = options.fundUsd ?? 1_000_000;
    for (const t of tokens) {
      const amount = rawAmountForUsd(fundUsd, t.priceMicroUsd, t.decimals);
      // WBNB cannot be minted: the deployer hands over part of what it wrapped.
      const fn = t.address === addresses.wrappedNative ? 'transfer' : 'mint';
      tx.call(`fund user ${t.symbol}`, t.address, compiled.TestToken!.abi as InterfaceAbi, fn, [user, amount], 100_000n);
    }
    await tx.confirm();
    await provider.send('anvil_setCode', [MULTICALL3, await provider.getCode(multicallImpl)]);
    await verifyPools(provider, uniswap, pools);
    const v4Pools = await createV4Pools(provider, tx, compiled, uniswap, addresses, tokens);
    await ageV2Pairs(provider, tx, pools);
    const swapYaml = buildSwapYaml(node.rpcUrl, addresses, tokens);
    let swapYamlPath: string | undefined;
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      swapYamlPath = path.join(options.dataDir, 'swap.yaml');
      await writeFileAtomic(swapYamlPath, swapYaml.text);
    }
    const userKey = ANVIL_ACCOUNTS.find((a) => a.address.toLowerCase() === user.toLowerCase())?.privateKey ?? '';
    return {
      rpcUrl: node.rpcUrl,
      chainId: node.chainId,
      provider,
      deployer: ANVIL_ACCOUNTS[0].address,
      user: { address: user, privateKey: userKey },
      addresses,
      tokens,
      pools,
      v4Pools,
      swapYaml,
      swapYamlPath,
      compiled,
      uniswap,
      token(symbol) {
        const t = tokens.find((x) => x.symbol === symbol);
        if (!t) throw new Error(`devchain has no token ${symbol}`);
        return t;
      },
      async mined(hash) {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const receipt = await provider.getTransactionReceipt(hash);
          if (receipt) return receipt;
          // anvil answers before its automine task seals the block: a few ms.
          if (Date.now() > deadline) throw new Error(`transaction ${hash} was not mined`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
      snapshot: () => provider.send('evm_snapshot', []) as Promise<string>,
      async revert(id) {
        const ok = (await provider.send('evm_revert', [id])) as boolean;
        if (!ok) throw new Error(`evm_revert to snapshot ${id} failed`);
      },
      async stop() {
        provider.destroy();
        await node.stop();
      },
    };
  } catch (err) {
    provider.destroy();
    await node.stop();
    throw err;
  }
}

/**
 * Real pairs have traded before: their price accumulators are non-zero, so a swap rewrites them
 * instead of setting them from zero (which costs ~40k more gas). A sync() after time passes
 * gives the fresh pairs that history, so gas measured here matches what users would see.
 */
async function ageV2Pairs(provider: JsonRpcProvider, tx: TxSender, pools: DevchainPool[]): Promise<void> {
  await provider.send('evm_increaseTime', [60]);
  await provider.send('evm_mine', []);
  for (const p of pools.filter((x) => x.kind === 'v2')) tx.call(`sync ${p.address}`, p.address, ['function sync()'], 'sync', [], 100_000n);
  await tx.confirm();
}

/** The CREATE2-derived addresses must be what the factories actually created. */
async function verifyPools(provider: JsonRpcProvider, uni: UniswapArtifacts, pools: DevchainPool[]): Promise<void> {
  const codes = await Promise.all(pools.map((p) => provider.getCode(p.address)));
  const missing = pools.filter((_, i) => codes[i] === '0x');
  if (missing.length > 0) {
    throw new Error(
      `pools not at their derived addresses: ${missing.map((p) => p.address).join(', ')} (init code hash ${uni.v3PoolInitCodeHash})`,
    );
  }
}
