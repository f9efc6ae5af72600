import { getAddress } from 'ethers';

const cache = new Map<string, string>();

/**
 * EIP-55 form of an address. A keccak per call costs ~35 µs in JS and a route names the same few
 * tokens, pools and contracts again and again, so answers are kept (bounded).
 */
export function checksum(address: string): string {
  const key = address.toLowerCase();
  let hit = cache.get(key);
  if (hit === undefined) {
    hit = getAddress(key);
    if (cache.size >= 10_000) cache.clear();
    cache.set(key, hit);
  }
  return hit;
}
