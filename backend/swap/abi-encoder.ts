/**
 * A small ABI encoder for the router's fixed call shapes (uint/address words, bytes, arrays and
 * tuples, head/tail layout of the Solidity ABI spec). ethers' coder stays the reference: it costs
 * ~3 ms for a six-path route, this ~0.05 ms, and a test asserts both give identical bytes.
 */
export interface Encodable {
  dynamic: boolean;
  /** The encoding as hex without 0x; its length is a multiple of 64. */
  hex(): string;
}

const MAX_UINT256 = (1n << 256n) - 1n;

function word(value: bigint): string {
  if (value < 0n || value > MAX_UINT256) throw new RangeError(`value ${value} does not fit in uint256`);
  return value.toString(16).padStart(64, '0');
}

export function uint(value: bigint | number): Encodable {
  const hex = word(BigInt(value));
  return { dynamic: false, hex: () => hex };
}

export function address(value: string): Encodable {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new TypeError(`invalid address ${value}`);
  return { dynamic: false, hex: () => value.slice(2).toLowerCase().padStart(64, '0') };
}

export function bool(value: boolean): Encodable {
  return uint(value ? 1n : 0n);
}

export function bytes(value: string): Encodable {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new TypeError('bytes must be 0x-prefixed hex');
  const data = value.slice(2).toLowerCase();
  const padded = data.padEnd(Math.ceil(data.length / 64) * 64, '0');
  return { dynamic: true, hex: () => word(BigInt(data.length / 2)) + padded };
}

/** A tuple (or a function's argument list): heads in order, dynamic parts as offsets to tails. */
export function tuple(items: Encodable[]): Encodable {
  return {
    dynamic: items.some((i) => i.dynamic),
    hex() {
      const statics = items.map((item) => (item.dynamic ? undefined : item.hex()));
      // A static item (a word, or a static tuple of several words) sits in the head itself.
      let offset = statics.reduce((size, hex) => size + (hex === undefined ? 32 : hex.length / 2), 0);
      const heads: string[] = [];
      const tails: string[] = [];
      for (const [i, item] of items.entries()) {
        const inline = statics[i];
        if (inline !== undefined) {
          heads.push(inline);
          continue;
        }
        const tail = item.hex();
        heads.push(word(BigInt(offset)));
        tails.push(tail);
        offset += tail.length / 2;
      }
      return heads.join('') + tails.join('');
    },
  };
}

/** A dynamic array `T[]`: the length, then its elements encoded as a tuple. */
export function array(items: Encodable[]): Encodable {
  return { dynamic: true, hex: () => word(BigInt(items.length)) + tuple(items).hex() };
}

/** Calldata: the 4-byte selector and the arguments as a tuple. */
export function callData(selector: string, args: Encodable[]): string {
  if (!/^0x[0-9a-f]{8}$/.test(selector)) throw new TypeError(`invalid selector ${selector}`);
  return selector + tuple(args).hex();
}

/** `abi.encode(...)` of the values (no selector). */
export function encode(args: Encodable[]): string {
  return `0x${tuple(args).hex()}`;
}
