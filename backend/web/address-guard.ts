// DESIGN 14: a page fetch must never reach the machine the backend runs on, its LAN or a cloud
// metadata address. Addresses are classified as bytes (not strings), so every spelling of one
// address (127.1, 2130706433, 0x7f000001, ::ffff:7f00:1) lands on the same rule. Lists: IANA
// special-purpose registries (facts/knowledge-web-chain.md §5).
import { isIP } from 'node:net';

/** [prefix bytes, prefix length in bits, why] */
type Range = [number[], number, string];

const V4: Range[] = [
  [[0], 8, 'an unspecified address (0.0.0.0/8)'],
  [[10], 8, 'a private address (10.0.0.0/8)'],
  [[100, 64], 10, 'a shared (CGNAT) address (100.64.0.0/10)'],
  [[127], 8, 'a loopback address (127.0.0.0/8)'],
  [[169, 254], 16, 'a link-local address (169.254.0.0/16, cloud metadata)'],
  [[172, 16], 12, 'a private address (172.16.0.0/12)'],
  [[192, 0, 0], 24, 'a reserved address (192.0.0.0/24)'],
  [[192, 0, 2], 24, 'a documentation address (192.0.2.0/24)'],
  [[192, 88, 99], 24, 'a reserved relay address (192.88.99.0/24)'],
  [[192, 168], 16, 'a private address (192.168.0.0/16)'],
  [[198, 18], 15, 'a benchmarking address (198.18.0.0/15)'],
  [[198, 51, 100], 24, 'a documentation address (198.51.100.0/24)'],
  [[203, 0, 113], 24, 'a documentation address (203.0.113.0/24)'],
  [[224], 4, 'a multicast address (224.0.0.0/4)'],
  [[240], 4, 'a reserved address (240.0.0.0/4)'],
];

const V6: Range[] = [
  [[], 128, 'the unspecified address (::)'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'the loopback address (::1)'],
  [[0, 0x64, 0xff, 0x9b], 96, 'a NAT64 address (64:ff9b::/96)'],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'a NAT64 address (64:ff9b:1::/48)'],
  [[1, 0, 0, 0, 0, 0, 0, 0], 64, 'a discard-only address (100::/64)'],
  [[0x20, 0x01, 0x00], 23, 'a reserved address (2001::/23, Teredo included)'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'a documentation address (2001:db8::/32)'],
  [[0x20, 0x02], 16, 'a 6to4 address (2002::/16)'],
  [[0xfc], 7, 'a unique-local address (fc00::/7)'],
  [[0xfe, 0x80], 10, 'a link-local address (fe80::/10)'],
  [[0xff], 8, 'a multicast address (ff00::/8)'],
];

function matches(bytes: number[], [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (an embedded dotted IPv4 tail included); `address` is valid per isIP. */
export function v6Bytes(address: string): number[] {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1]) {
    const [a, b, c, d] = v4Bytes(tail[1]) as [number, number, number, number];
    text = text.slice(0, -tail[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** Why `address` (an IP literal) is refused, or null when it is a public address. */
export function forbiddenReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) {
    if (bare === '255.255.255.255') return 'the broadcast address';
    const bytes = v4Bytes(bare);
    return V4.find((r) => matches(bytes, r))?.[2] ?? null;
  }
  if (family === 6) {
    const bytes = v6Bytes(bare);
    // ::ffff:a.b.c.d and ::a.b.c.d carry an IPv4 address: the embedded one decides.
    const mapped = bytes.slice(0, 10).every((b) => b === 0) && ((bytes[10] === 0xff && bytes[11] === 0xff) || bytes[10] === 0);
    if (mapped && !(bytes.slice(10, 15).every((b) => b === 0) && (bytes[15] ?? 0) <= 1)) {
      const v4 = bytes.slice(12).join('.');
      const why = forbiddenReason(v4);
      return why ? `${why}, written as IPv6 (${bare})` : bytes[10] === 0 ? 'a deprecated IPv4-compatible address (::/96)' : null;
    }
    return V6.find((r) => matches(bytes, r))?.[2] ?? null;
  }
  return 'not an IP address';
}
