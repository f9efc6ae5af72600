import { hexWord } from './abi-words.js';
import { AbiCoder, keccak256 } from 'ethers';
import type { JsonRpcClient, RpcCall } from './json-rpc.js';

/**
 * Where an ERC-20 keeps `balanceOf[holder]` and `allowance[owner][spender]`, found by probing:
 * an eth_call of balanceOf / allowance with every candidate storage slot overridden to a marker
 * value of its own answers the marker of the slot the token reads. Solidity lays a mapping entry
 * at keccak256(key . slot), Vyper (before 0.3) at keccak256(slot . key). Two calls in one batch,
 * found once per node and token (the gas simulation and the fee-on-transfer check share it).
 */
export interface MappingSlot {
  slot: number;
  vyper: boolean;
}

export interface TokenSlots {
  balance: MappingSlot;
  allowance: MappingSlot;
}

const coder = AbiCoder.defaultAbiCoder();
const MAX_SLOT = 24;
const MARKER = 0x5eed_0000_0000_0000_0000_0000_c0ffeen;
const PROBE_OWNER = '0x000000000000000000000000000000000000dEaD';
const PROBE_SPENDER = '0x0000000000000000000000000000000000C0FFEE';
const BALANCE_OF = '0x70a08231';
const ALLOWANCE = '0xdd62ed3e';

const addressWord = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, '0')}`;

function mappingKey(key: string, slot: bigint | string, vyper: boolean): string {
  const slotWord = typeof slot === 'string' ? slot : hexWord(slot);
  const keyWord = key.length === 42 ? addressWord(key) : key;
  return keccak256(
    vyper ? coder.encode(['bytes32', 'bytes32'], [slotWord, keyWord]) : coder.encode(['bytes32', 'bytes32'], [keyWord, slotWord]),
  );
}

/** Storage key of `balanceOf[holder]`. */
export function balanceKey(s: MappingSlot, holder: string): string {
  return mappingKey(holder, BigInt(s.slot), s.vyper);
}

/** Storage key of `allowance[owner][spender]`. */
export function allowanceKey(s: MappingSlot, owner: string, spender: string): string {
  return mappingKey(spender, mappingKey(owner, BigInt(s.slot), s.vyper), s.vyper);
}

function candidates(): MappingSlot[] {
  const out: MappingSlot[] = [];
  for (let slot = 0; slot <= MAX_SLOT; slot++) out.push({ slot, vyper: false }, { slot, vyper: true });
  return out;
}

/** Probes both mappings in one batch of two calls; undefined when either is not a plain mapping slot. */
export async function probeTokenSlots(rpc: JsonRpcClient, token: string, signal?: AbortSignal): Promise<TokenSlots | undefined> {
  const list = candidates();
  const stateDiff: Record<string, string> = {};
  list.forEach((c, i) => {
    stateDiff[balanceKey(c, PROBE_OWNER)] = hexWord(MARKER + BigInt(i));
    stateDiff[allowanceKey(c, PROBE_OWNER, PROBE_SPENDER)] = hexWord(MARKER + BigInt(list.length + i));
  });
  const call = (data: string): RpcCall => ({ method: 'eth_call', params: [{ to: token, data }, 'latest', { [token]: { stateDiff } }] });
  const balanceData = BALANCE_OF + addressWord(PROBE_OWNER).slice(2);
  const allowanceData = ALLOWANCE + addressWord(PROBE_OWNER).slice(2) + addressWord(PROBE_SPENDER).slice(2);
  const [b, a] = await rpc.batch<string>([call(balanceData), call(allowanceData)], signal);
  const index = (r: string | undefined, offset: number) => {
    const v = typeof r === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(r) ? BigInt(r) - MARKER - BigInt(offset) : -1n;
    return v >= 0n && v < BigInt(list.length) ? list[Number(v)] : undefined;
  };
  const balance = index(b, 0);
  const allowance = index(a, list.length);
  return balance && allowance ? { balance, allowance } : undefined;
}

const probes = new Map<string, Promise<TokenSlots | undefined>>();

/** probeTokenSlots once per node and token; a failed probe (node down, aborted) is not remembered, "no plain slot" is. */
export function tokenSlots(rpc: JsonRpcClient, token: string, signal?: AbortSignal): Promise<TokenSlots | undefined> {
  const key = `${rpc.url}|${token.toLowerCase()}`;
  let hit = probes.get(key);
  if (!hit) {
    hit = probeTokenSlots(rpc, token, signal);
    probes.set(key, hit);
    hit.catch(() => probes.delete(key));
    if (probes.size > 10_000) probes.delete(probes.keys().next().value as string);
  }
  return hit;
}
