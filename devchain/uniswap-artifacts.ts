import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keccak256 } from 'ethers';
import type { CompiledContract } from './compile-contracts.js';
import { nodeModulesDir } from './paths.js';

export interface UniswapArtifacts {
  v2Factory: CompiledContract;
  v2Pair: CompiledContract;
  v3Factory: CompiledContract;
  v3Pool: CompiledContract;
  /** keccak256 of the pair / pool creation code: the CREATE2 init-code hashes. */
  v2PairInitCodeHash: string;
  v3PoolInitCodeHash: string;
  /** @uniswap/v4-core's shipped forge artifacts (not recompiled): the singleton and test helpers. */
  v4PoolManager: CompiledContract;
  v4ModifyLiquidity: CompiledContract;
  v4FeeTakingHook: CompiledContract;
}

function load(relative: string, bytecodeOf: (json: Record<string, unknown>) => unknown): CompiledContract {
  const file = path.join(nodeModulesDir, relative);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`missing DEX artifact ${relative}: ${(err as Error).message}`, { cause: err });
  }
  const raw = bytecodeOf(json);
  if (typeof raw !== 'string' || raw.replace(/^0x/, '').length === 0 || !Array.isArray(json.abi)) {
    throw new Error(`DEX artifact ${relative} has no abi or creation bytecode`);
  }
  return { abi: json.abi as unknown[], bytecode: raw.startsWith('0x') ? raw : `0x${raw}` };
}

/**
 * The real Uniswap contracts from their npm packages. v2-core ships only the 0.30 % pair
 * (no PancakeSwap-style 0.25 % pair is installed), so both V2 sources of the devchain use it.
 * The V3 factory embeds the pool creation code; the pool artifact is loaded for its ABI and
 * to compute the CREATE2 init-code hash.
 */
export function loadUniswapArtifacts(): UniswapArtifacts {
  const v2 = (name: string): CompiledContract =>
    load(`@uniswap/v2-core/build/${name}.json`, (j) => (j.evm as { bytecode?: { object?: string } })?.bytecode?.object ?? j.bytecode);
  const v3 = (name: string): CompiledContract => load(`@uniswap/v3-core/artifacts/contracts/${name}.sol/${name}.json`, (j) => j.bytecode);
  const v4 = (name: string): CompiledContract =>
    load(`@uniswap/v4-core/out/${name}.sol/${name}.json`, (j) => (j.bytecode as { object?: string } | undefined)?.object);
  const v2Pair = v2('UniswapV2Pair');
  const v3Pool = v3('UniswapV3Pool');
  return {
    v2Factory: v2('UniswapV2Factory'),
    v2Pair,
    v3Factory: v3('UniswapV3Factory'),
    v3Pool,
    v2PairInitCodeHash: keccak256(v2Pair.bytecode),
    v3PoolInitCodeHash: keccak256(v3Pool.bytecode),
    v4PoolManager: v4('PoolManager'),
    v4ModifyLiquidity: v4('PoolModifyLiquidityTest'),
    v4FeeTakingHook: v4('FeeTakingHook'),
  };
}
