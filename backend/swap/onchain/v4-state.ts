import { hexWord, wordDigits } from './abi-words.js';
import { AbiCoder, keccak256 } from 'ethers';
import type { RpcCall } from './json-rpc.js';
import type { V3PoolState } from './v3-quote.js';

/**
 * The PoolManager's storage layout (facts/uniswap-v4.md): pools mapping at slot 6, per pool
 * slot0 at +0, liquidity at +3, ticks mapping at +4, tick bitmap at +5. Read with the batched
 * `extsload(bytes32[])`, so one eth_call returns every word a request needs.
 */
const coder = AbiCoder.defaultAbiCoder();
const EXTSLOAD_MANY = '0xdbd035ff';
const POOLS_SLOT = 6n;
export const DYNAMIC_FEE_FLAG = 0x800000;
/** beforeSwap (1 << 7), afterSwap (1 << 6), beforeSwapReturnsDelta (1 << 3), afterSwapReturnsDelta (1 << 2). */
export const SWAP_HOOK_BITS = 0xccn;

// Storage keys are keccak hashes, recomputed for every followed pool at every block: kept once
// computed (a key never changes), up to a bound, as the live-chain profile showed keccak's cost.
const KEPT_KEYS = 200_000;
const keys = new Map<string, string>();
function kept(id: string, compute: () => string): string {
  let k = keys.get(id);
  if (k === undefined) {
    if (keys.size >= KEPT_KEYS) keys.clear();
    keys.set(id, (k = compute()));
  }
  return k;
}

export function poolStateSlot(poolId: string): bigint {
  return BigInt(kept(`p${poolId}`, () => keccak256(coder.encode(['bytes32', 'uint256'], [poolId, POOLS_SLOT]))));
}

export function slot0Key(state: bigint): string {
  return hexWord(state);
}

export function liquidityKey(state: bigint): string {
  return hexWord(state + 3n);
}

export function tickKey(state: bigint, tick: number): string {
  return kept(`t${state}:${tick}`, () => keccak256(coder.encode(['int256', 'uint256'], [tick, state + 4n])));
}

export function bitmapKey(state: bigint, word: number): string {
  return kept(`w${state}:${word}`, () => keccak256(coder.encode(['int256', 'uint256'], [word, state + 5n])));
}

/** extsload(bytes32[]): the keys are 0x-prefixed 32-byte words (hex32 or keccak256 output), laid out as the ABI does. */
export function extsloadCall(manager: string, keys: string[], blockTag: string): RpcCall {
  const words = keys.map((k) => {
    if (k.length !== 66) throw new Error(`extsload: not a 32-byte key: ${k}`);
    return k.slice(2);
  });
  const data = `${EXTSLOAD_MANY}${wordDigits(0x20)}${wordDigits(keys.length)}${words.join('')}`;
  return { method: 'eth_call', params: [{ to: manager, data }, blockTag] };
}

/** The words an extsload(bytes32[]) answer returns, in key order. */
/** The bytes32[] an extsload answers; a cut-short answer is an error. */
export function decodeWords(result: string): bigint[] {
  const hex = result.startsWith('0x') ? result.slice(2) : result;
  const at = Number.parseInt(hex.slice(0, 64), 16) * 2;
  const count = Number.parseInt(hex.slice(at, at + 64), 16);
  if (!Number.isSafeInteger(at) || !Number.isSafeInteger(count) || hex.length < at + 64 + count * 64)
    throw new Error('extsload answered a malformed bytes32[] (cut short)');
  const out = new Array<bigint>(count);
  for (let i = 0, p = at + 64; i < count; i++, p += 64) out[i] = BigInt(`0x${hex.slice(p, p + 64)}`);
  return out;
}

export interface Slot0 {
  sqrtPriceX96: bigint;
  tick: number;
  /** Pips per direction: zeroForOne (low 12 bits), oneForZero (high 12 bits). */
  protocolFee: [number, number];
  lpFee: number;
}

export function parseSlot0(word: bigint): Slot0 {
  const protocol = Number((word >> 184n) & 0xffffffn);
  return {
    sqrtPriceX96: word & ((1n << 160n) - 1n),
    tick: Number(BigInt.asIntN(24, (word >> 160n) & 0xffffffn)),
    protocolFee: [protocol & 0xfff, protocol >> 12],
    lpFee: Number((word >> 208n) & 0xffffffn),
  };
}

/** V4's fee per swap step: the protocol fee on top of the LP fee (pf + lp - pf * lp / 1e6). */
export function swapFee(protocolFee: number, lpFee: number): number {
  return protocolFee === 0 ? lpFee : protocolFee + lpFee - Math.floor((protocolFee * lpFee) / 1_000_000);
}

/** liquidityNet of a tick word (liquidityGross low 128 bits, liquidityNet high 128, signed). */
export function liquidityNetOf(word: bigint): bigint {
  return BigInt.asIntN(128, word >> 128n);
}

/** Why a pool is not routable through the router's V4 adapter, or undefined when it is. */
export function unusableReason(hooks: string, fee: number): string | undefined {
  if (fee & DYNAMIC_FEE_FLAG) return 'its LP fee is dynamic (set by a hook at swap time), so no quote can be exact';
  const h = BigInt(hooks);
  if (h !== 0n) {
    const swapBits = (h & SWAP_HOOK_BITS) !== 0n;
    return `it has hooks ${hooks}${swapBits ? ' with swap permissions (beforeSwap/afterSwap/returns-delta) that can change swap amounts' : ''}; the router's V4 adapter swaps only hookless pools`;
  }
  return undefined;
}

/**
 * A V4 pool's quoting state from its slot0 and liquidity words: the V3 step math with the swap fee
 * per direction. Undefined for an uninitialized pool (price 0) or one whose fee takes the whole input.
 */
export function v4PoolState(slot0Word: bigint, liquidityWord: bigint, tickSpacing: number): V3PoolState | undefined {
  const slot0 = parseSlot0(slot0Word);
  const fees: [number, number] = [swapFee(slot0.protocolFee[0], slot0.lpFee), swapFee(slot0.protocolFee[1], slot0.lpFee)];
  if (slot0.sqrtPriceX96 === 0n || fees[0] >= 1_000_000 || fees[1] >= 1_000_000) return undefined;
  return {
    sqrtPriceX96: slot0.sqrtPriceX96,
    tick: slot0.tick,
    liquidity: liquidityWord & ((1n << 128n) - 1n),
    fee: fees[0],
    fees,
    tickSpacing,
    bitmap: new Map(),
    liquidityNet: new Map(),
  };
}
