import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AbiCoder, Interface } from 'ethers';
import { decodeAggregate3, encodeAggregate3 } from '../../backend/swap/onchain/aggregate3-codec.js';
import { V2_PAIR, V3_POOL } from '../../backend/swap/onchain/pool-abi.js';
import { GET_RESERVES, SLOT0, tickBitmapData, ticksData } from '../../backend/swap/onchain/pool-calls.js';
import { decodeWords, extsloadCall } from '../../backend/swap/onchain/v4-state.js';

// The hand-written aggregate3 codec against ethers' ABI coder (the reference), on random calls of
// every length class: empty data, under a word, exact words, odd tails.

const coder = AbiCoder.defaultAbiCoder();
const multicall = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])',
]);

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const hexBytes = (r: () => number, n: number) =>
  `0x${Array.from({ length: n }, () =>
    Math.floor(r() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('')}`;

describe('hand-written ABI of the per-block reads: Multicall3 aggregate3, pool calls, extsload', () => {
  it('encodes calls exactly as the ABI coder does', () => {
    const r = rng(12345);
    for (let round = 0; round < 40; round++) {
      const calls = Array.from({ length: Math.floor(r() * 12) }, () => ({
        target: hexBytes(r, 20),
        allowFailure: r() < 0.5,
        callData: hexBytes(r, [0, 4, 31, 32, 36, 68, 100][Math.floor(r() * 7)]),
      }));
      const reference = multicall.encodeFunctionData('aggregate3', [calls.map((c) => [c.target, c.allowFailure, c.callData])]);
      assert.equal(encodeAggregate3(calls), reference);
    }
  });

  it('decodes answers exactly as the ABI coder does', () => {
    const r = rng(777);
    for (let round = 0; round < 40; round++) {
      const results: [boolean, string][] = Array.from({ length: Math.floor(r() * 12) }, () => [
        r() < 0.8,
        hexBytes(r, [0, 1, 32, 64, 96, 33][Math.floor(r() * 6)]),
      ]);
      const answer = coder.encode(['(bool,bytes)[]'], [results]);
      assert.deepEqual(decodeAggregate3(answer), results);
    }
  });

  it('a cut-short or lying answer is an error, never a wrong result', () => {
    const answer = coder.encode(['(bool,bytes)[]'], [[[true, `0x${'ab'.repeat(40)}`]]]);
    assert.throws(() => decodeAggregate3(answer.slice(0, answer.length - 64)), /cut short/);
    // A count far beyond the answer's length runs out of words rather than looping on.
    const lying = `0x${answer.slice(2, 66)}${'f'.repeat(16).padStart(64, '0')}${answer.slice(130)}`;
    assert.throws(() => decodeAggregate3(lying), /malformed/);
    assert.throws(() => encodeAggregate3([{ target: '0x12', allowFailure: true, callData: '0x' }]), /not an address/);
  });

  it('pool reads and extsload keys are encoded as the ABI coder does, negative words and ticks included', () => {
    assert.equal(GET_RESERVES, V2_PAIR.encodeFunctionData('getReserves'));
    assert.equal(SLOT0, V3_POOL.encodeFunctionData('slot0'));
    for (const v of [0, 1, -1, 255, -256, 32767, -32768]) assert.equal(tickBitmapData(v), V3_POOL.encodeFunctionData('tickBitmap', [v]));
    for (const v of [0, 60, -60, 887272, -887272]) assert.equal(ticksData(v), V3_POOL.encodeFunctionData('ticks', [v]));
    const r = rng(99);
    const keys = Array.from({ length: 7 }, () => hexBytes(r, 32));
    const ext = new Interface(['function extsload(bytes32[] slots) view returns (bytes32[])']);
    assert.equal(
      (extsloadCall(`0x${'2'.repeat(40)}`, keys, 'latest').params[0] as { data: string }).data,
      ext.encodeFunctionData('extsload', [keys]),
    );
    assert.deepEqual(
      decodeWords(coder.encode(['bytes32[]'], [keys])),
      keys.map((k) => BigInt(k)),
    );
    assert.throws(() => decodeWords(coder.encode(['bytes32[]'], [keys]).slice(0, -64)), /cut short/);
  });
});
