import type { RouteResponse } from '../../../backend/swap/swap-api.js';

export type { RouteResponse };
export type RouteHop = RouteResponse['routeInfo']['paths'][number]['hops'][number];

export const SOURCES = ['swapa', 'swapav3', 'swapb', 'swapb-v3'] as const;
export const CHAINS = ['bsc', 'ethereum'] as const;
export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
export const DEFAULT_SWAP_URL = 'http://127.0.0.1:8081';

export interface SwapForm {
  swapUrl: string;
  chain: (typeof CHAINS)[number];
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  sender: string;
  recipient: string;
  slippageTolerance: string;
  gasPrice: string;
  includedSources: string[];
}

/** The request body: empty optional fields are left out so the builder applies its defaults. */
export function requestBody(f: SwapForm): Record<string, unknown> {
  const body: Record<string, unknown> = {
    chain: f.chain,
    tokenIn: f.tokenIn.trim(),
    tokenOut: f.tokenOut.trim(),
    amountIn: f.amountIn.trim(),
    sender: f.sender.trim(),
  };
  if (f.recipient.trim()) body.recipient = f.recipient.trim();
  if (f.slippageTolerance.trim()) body.slippageTolerance = Number(f.slippageTolerance);
  if (f.gasPrice.trim()) body.gasPrice = f.gasPrice.trim();
  if (f.includedSources.length !== SOURCES.length) body.includedSources = f.includedSources;
  return body;
}

export function shortAddress(address: string): string {
  if (address.toLowerCase() === NATIVE.toLowerCase()) return 'native';
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** Share of the input a path carries, in percent with one decimal. */
export function share(part: string, total: string): string {
  try {
    const t = BigInt(total);
    if (t === 0n) return '0';
    return (Number((BigInt(part) * 1000n) / t) / 10).toString();
  } catch {
    return '?';
  }
}

export function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `$${value.toLocaleString('en', { maximumFractionDigits: 2 })}`;
}
