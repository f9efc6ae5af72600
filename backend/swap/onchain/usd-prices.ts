import type { BlockRef, PoolReader, PoolRef, PoolState } from './pool-reader.js';
import { pairKey, pathOutput } from './path-candidates.js';

/**
 * USD values from the `usd_tokens` pools: a token's price is the best direct quote of a small
 * amount into a USD token, or through the wrapped native token; null when no such pool exists.
 */
export async function usdPricer(c: {
  reader: PoolReader;
  block: BlockRef;
  signal: AbortSignal;
  wrapped: string;
  usdTokens: string[];
  /** Tokens whose values will be asked for (their decimals are read once and kept). */
  tokens: string[];
  byPair: Map<string, PoolRef[]>;
  states: Map<string, PoolState>;
}) {
  const decimals = await c.reader.tokenDecimals([c.wrapped, ...c.usdTokens, ...c.tokens], c.signal);
  const unit = (t: string) => 10n ** BigInt(decimals.get(t) ?? 18);

  /** Best output for `amount` of `from` into `to` through one pool. */
  const direct = (from: string, to: string, amount: bigint): bigint => {
    let best = 0n;
    for (const pool of c.byPair.get(pairKey(from, to)) ?? []) {
      const out = pathOutput({ tokens: [from, to], pools: [pool] }, c.states, amount);
      if (out > best) best = out;
    }
    return best;
  };

  /** USD per whole token (as a float), or null. */
  const price = (token: string): number | null => {
    if (c.usdTokens.includes(token)) return 1;
    const probe = unit(token) / 1000n || 1n;
    for (const usd of c.usdTokens) {
      const out = direct(token, usd, probe);
      if (out > 0n) return Number(out) / Number(unit(usd)) / (Number(probe) / Number(unit(token)));
    }
    if (token !== c.wrapped) {
      const viaWrapped = direct(token, c.wrapped, probe);
      const wrappedPrice = price(c.wrapped);
      if (viaWrapped > 0n && wrappedPrice !== null) {
        return (Number(viaWrapped) / Number(unit(c.wrapped)) / (Number(probe) / Number(unit(token)))) * wrappedPrice;
      }
    }
    return null;
  };

  return {
    /** USD value of `amount` base units of `token`, or null when no price path exists. */
    value(token: string, amount: bigint): number | null {
      const p = price(token);
      if (p === null || !decimals.has(token)) return null;
      return Math.round((Number(amount) / Number(unit(token))) * p * 1e6) / 1e6;
    },
  };
}
