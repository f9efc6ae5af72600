// The pool types the reader, its state rounds and pool lookups share: one home, so none of
// those modules imports another only for its types (no import cycle).
import type { V3PoolState } from './v3-quote.js';
import type { SourceName } from '../swap-api.js';

export interface PoolRef {
  source: SourceName;
  kind: 'v2' | 'v3' | 'v4';
  /** The pool's address; for V4 its PoolId (32 bytes, lower-case hex). */
  address: string;
  /** ERC-20s in the pool's order; for a native V4 pool the wrapped token stands in for native. */
  token0: string;
  token1: string;
  /** V2: fee in bps from settings; V3: fee tier in hundredths of a bip; V4: the key's LP fee in pips. */
  fee: number;
  /** V4: the PoolManager and the key as the pool holds it (the zero address is native). */
  v4?: { manager: string; currency0: string; currency1: string; tickSpacing: number };
}

export interface V2State {
  reserve0: bigint;
  reserve1: bigint;
  /** The pair's blockTimestampLast: equal to the block's time when it traded in that block. */
  timestampLast?: number;
  /** The price accumulators are still zero (no swap or sync in a later second than the first mint). */
  accumulatorsZero?: boolean;
}

export type PoolState = { kind: 'v2'; state: V2State } | { kind: 'v3' | 'v4'; state: V3PoolState };

/** A block to read at: the number as the call tag, the hash as the cache key. */
export interface BlockRef {
  tag: string;
  hash: string;
  /** The block's time (seconds), when known. */
  timestamp?: number;
}
