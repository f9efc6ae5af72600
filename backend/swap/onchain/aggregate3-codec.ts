/**
 * Multicall3's `aggregate3((address,bool,bytes)[])` calldata and its `(bool,bytes)[]` answer, by hand.
 * A followed chain sends about 1,500 sub-calls per block; through ethers' generic ABI coder their
 * encoding and decoding took half of the builder's CPU (profiled on the live-chain bench), which a
 * busy machine then showed as request latency. The layout is the ABI's: a head of offsets, then
 * each tuple with its bytes padded to 32-byte words.
 */
import { wordDigits } from './abi-words.js';

const AGGREGATE3 = '82ad56cb';

function padded(hexBody: string): string {
  const rem = hexBody.length % 64;
  return rem === 0 ? hexBody : hexBody + '0'.repeat(64 - rem);
}

export interface SubCall {
  target: string;
  allowFailure: boolean;
  callData: string;
}

/** The calldata of aggregate3(calls). Addresses and call data are 0x-prefixed hex. */
export function encodeAggregate3(calls: SubCall[]): string {
  const heads: string[] = [];
  const bodies: string[] = [];
  let offset = calls.length * 32;
  for (const c of calls) {
    const data = c.callData.slice(2);
    if (data.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(data))
      throw new Error(`aggregate3: call data is not hex bytes: ${c.callData.slice(0, 20)}`);
    const target = c.target.slice(2).toLowerCase();
    if (target.length !== 40) throw new Error(`aggregate3: not an address: ${c.target}`);
    const body = `${'0'.repeat(24)}${target}${wordDigits(c.allowFailure ? 1 : 0)}${wordDigits(0x60)}${wordDigits(data.length / 2)}${padded(data)}`;
    heads.push(wordDigits(offset));
    bodies.push(body);
    offset += body.length / 2;
  }
  return `0x${AGGREGATE3}${wordDigits(0x20)}${wordDigits(calls.length)}${heads.join('')}${bodies.join('')}`;
}

/** Reads a 32-byte word at byte `at` of `hex` (no 0x) as a safe integer, or throws naming the answer as malformed. */
function readInt(hex: string, at: number): number {
  const w = hex.slice(at * 2, at * 2 + 64);
  if (w.length !== 64) throw new Error('Multicall3 answered a malformed aggregate3 result (cut short)');
  const n = Number.parseInt(w, 16);
  if (!Number.isSafeInteger(n)) throw new Error('Multicall3 answered a malformed aggregate3 result (an offset out of range)');
  return n;
}

/** The `(bool success, bytes returnData)[]` of an aggregate3 answer, return data as 0x-prefixed hex. */
export function decodeAggregate3(answer: string): [boolean, string][] {
  const hex = answer.startsWith('0x') ? answer.slice(2) : answer;
  const array = readInt(hex, 0);
  const count = readInt(hex, array);
  const base = array + 32;
  const out: [boolean, string][] = [];
  for (let i = 0; i < count; i++) {
    const tuple = base + readInt(hex, base + i * 32);
    const success = readInt(hex, tuple) !== 0;
    const bytesAt = tuple + readInt(hex, tuple + 32);
    const len = readInt(hex, bytesAt);
    const start = (bytesAt + 32) * 2;
    if (start + len * 2 > hex.length) throw new Error('Multicall3 answered a malformed aggregate3 result (return data cut short)');
    out.push([success, `0x${hex.slice(start, start + len * 2)}`]);
  }
  return out;
}
