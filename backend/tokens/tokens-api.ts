// GET /api/swap/tokens (the swap page's token picker) as types, for clients.

export type TokenRole = 'native' | 'wrapped_native' | 'connector' | 'usd' | 'asked';

export interface KnownToken {
  address: string;
  /** From the token contract; null when the node did not say. */
  symbol: string | null;
  decimals: number | null;
  roles: TokenRole[];
}

export interface TokenList {
  chain: string;
  tokens: KnownToken[];
  /** Why symbols or decimals are missing (node unreachable, …), else null. */
  error: string | null;
}
