import { loadChainSettings } from '../swap/swap-settings.js';
import type { KnownToken, TokenList, TokenRole } from './tokens-api.js';

/** The native coin's placeholder address (DESIGN 5). */
export const NATIVE_ADDRESS = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const NATIVE_SYMBOL: Record<string, string> = { bsc: 'BNB', ethereum: 'ETH' };
const SYMBOL_CALL = '0x95d89b41'; // symbol()
const DECIMALS_CALL = '0x313ce567'; // decimals()

/** `symbol()` answers an ABI string, or a bytes32 on some old tokens. */
export function decodeSymbol(hex: string | undefined): string | null {
  if (!hex || !/^0x[0-9a-fA-F]*$/.test(hex) || hex.length < 66) return null;
  const bytes = Buffer.from(hex.slice(2), 'hex');
  let text: string;
  if (bytes.length >= 96 && bytes.readUInt32BE(28) === 32) {
    const length = Number(bytes.readBigUInt64BE(56));
    if (length > 64 || 64 + length > bytes.length) return null;
    text = bytes.subarray(64, 64 + length).toString('utf8');
  } else text = bytes.subarray(0, 32).toString('utf8').replace(/\0+$/, '');
  text = text.trim();
  return /^[\x20-\x7e]{1,32}$/.test(text) ? text : null;
}

export function decodeDecimals(hex: string | undefined): number | null {
  if (!hex || !/^0x[0-9a-fA-F]{1,64}$/.test(hex)) return null;
  const n = Number(BigInt(hex));
  return Number.isInteger(n) && n >= 0 && n <= 77 ? n : null;
}

/** Symbols and decimals never change: one lookup per node and token for the life of the process. */
const cache = new Map<string, { symbol: string | null; decimals: number | null }>();

async function readTokens(rpcUrl: string, addresses: string[]): Promise<Map<string, { symbol: string | null; decimals: number | null }>> {
  const missing = addresses.filter((a) => !cache.has(`${rpcUrl}|${a.toLowerCase()}`));
  if (missing.length) {
    const calls = missing.flatMap((to, i) => [
      { jsonrpc: '2.0', id: 2 * i, method: 'eth_call', params: [{ to, data: SYMBOL_CALL }, 'latest'] },
      { jsonrpc: '2.0', id: 2 * i + 1, method: 'eth_call', params: [{ to, data: DECIMALS_CALL }, 'latest'] },
    ]);
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls),
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new Error(`the RPC node answered HTTP ${res.status}`);
    const answers = (await res.json()) as { id: number; result?: string }[];
    const byId = new Map((Array.isArray(answers) ? answers : []).map((a) => [a.id, a.result]));
    missing.forEach((address, i) => {
      cache.set(`${rpcUrl}|${address.toLowerCase()}`, {
        symbol: decodeSymbol(byId.get(2 * i)),
        decimals: decodeDecimals(byId.get(2 * i + 1)),
      });
    });
  }
  return new Map(addresses.map((a) => [a, cache.get(`${rpcUrl}|${a.toLowerCase()}`)!]));
}

/**
 * The tokens a user of the swap page can pick by symbol: the native coin, the wrapped native token,
 * the connectors and the USD tokens of swap.yaml, with `symbol()` and `decimals()` read on chain.
 */
export async function listKnownTokens(
  swapYaml: string,
  chain: 'bsc' | 'ethereum',
  env: NodeJS.ProcessEnv,
  asked: string[] = [],
): Promise<TokenList> {
  const settings = await loadChainSettings(swapYaml, chain, env);
  const byAddress = new Map<string, KnownToken>();
  const add = (address: string | undefined, role: TokenRole) => {
    if (!address) return;
    const key = address.toLowerCase();
    const entry = byAddress.get(key) ?? { address, symbol: null, decimals: null, roles: [] };
    if (!entry.roles.includes(role)) entry.roles.push(role);
    byAddress.set(key, entry);
  };
  add(settings.wrapped_native, 'wrapped_native');
  for (const a of settings.connectors ?? []) add(a, 'connector');
  for (const a of settings.usd_tokens ?? []) add(a, 'usd');
  for (const a of asked) if (a.toLowerCase() !== NATIVE_ADDRESS.toLowerCase()) add(a, 'asked');
  const tokens = [...byAddress.values()];
  let error: string | null = null;
  if (settings.rpc_url && tokens.length) {
    try {
      const read = await readTokens(
        settings.rpc_url,
        tokens.map((t) => t.address),
      );
      for (const t of tokens) Object.assign(t, read.get(t.address));
    } catch (err) {
      error = `token symbols could not be read from the RPC node: ${(err as Error).message}`;
    }
  } else if (!settings.rpc_url) error = `swap.yaml: chains.${chain}.rpc_url is not set`;
  const native: KnownToken = { address: NATIVE_ADDRESS, symbol: NATIVE_SYMBOL[chain], decimals: 18, roles: ['native'] };
  return { chain, tokens: [native, ...tokens], error };
}
