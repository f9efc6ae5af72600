import { useEffect, useMemo, useState } from 'react';
import type { KnownToken, TokenList } from '../../../backend/tokens/tokens-api.js';
import { useApi } from '../api/session';

export type { KnownToken };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** What a token field holds: a known token (by symbol or address), an unknown address, or text that is neither. */
export type Resolved = { kind: 'token'; token: KnownToken } | { kind: 'unknown'; text: string } | { kind: 'empty' };

/**
 * The swap listener's URL as the backend reports it (no hard-coded port), and the chain's known tokens
 * with symbols and decimals; addresses the user pastes are looked up too.
 */
export function useSwapInfo(chain: string, typed: string[]) {
  const api = useApi();
  const [swapUrl, setSwapUrl] = useState<string | null>(null);
  const [list, setList] = useState<TokenList | null>(null);
  const [listError, setListError] = useState<string | null>(null);

  useEffect(() => {
    api.get<{ swap_url?: string | null }>('/api/version').then(
      (v) => setSwapUrl(v.swap_url ?? null),
      () => undefined,
    );
  }, [api]);

  const asked = typed
    .map((t) => t.trim())
    .filter((t) => ADDRESS.test(t))
    .sort()
    .join(',');
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => {
      api.get<TokenList>(`/api/swap/tokens?chain=${chain}${asked ? `&addresses=${asked}` : ''}`).then(
        (l) => {
          if (cancelled) return;
          setList(l);
          setListError(l.error);
        },
        (err: Error) => !cancelled && setListError(err.message),
      );
    }, 250);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, chain, asked]);

  return useMemo(() => {
    const tokens = list?.tokens ?? [];
    const resolve = (text: string): Resolved => {
      const t = text.trim();
      if (!t) return { kind: 'empty' };
      const lower = t.toLowerCase();
      const token = tokens.find((k) => k.address.toLowerCase() === lower) ?? tokens.find((k) => k.symbol?.toLowerCase() === lower);
      return token ? { kind: 'token', token } : { kind: 'unknown', text: t };
    };
    const byAddress = (address: string) => tokens.find((k) => k.address.toLowerCase() === address.toLowerCase());
    const symbolOf = (address: string) => byAddress(address)?.symbol ?? null;
    const decimalsOf = (address: string) => byAddress(address)?.decimals ?? null;
    const named = tokens.filter((k) => k.symbol && !k.roles.every((r) => r === 'asked'));
    return { swapUrl, tokens: named, resolve, symbolOf, decimalsOf, listError };
  }, [list, swapUrl, listError]);
}
