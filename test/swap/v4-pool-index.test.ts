import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AbiCoder } from 'ethers';
import { JsonRpcClient } from '../../backend/swap/onchain/json-rpc.js';
import { INITIALIZE_TOPIC, V4PoolIndex } from '../../backend/swap/onchain/v4-pool-index.js';
import { FakeNode, type Call } from './fake-node.js';

const coder = AbiCoder.defaultAbiCoder();
const MANAGER = '0x000000000004444c5dc75cb358380d2e3de08a90';
const ZERO = `0x${'0'.repeat(40)}`;
const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const hex = (n: number) => `0x${n.toString(16)}`;

/** A chain of blocks with a hash per number and Initialize logs at some of them. */
class FakeChain {
  hashes = new Map<number, string>();
  pools = new Map<number, number>(); // block -> pool id number
  log(block: number) {
    const token = `0x${'11'.repeat(20)}`;
    return {
      topics: [INITIALIZE_TOPIC, id(this.pools.get(block)!), coder.encode(['address'], [ZERO]), coder.encode(['address'], [token])],
      data: coder.encode(['uint24', 'int24', 'address', 'uint160', 'int24'], [3000, 60, ZERO, 1n << 96n, 0]),
      blockNumber: hex(block),
    };
  }
  answer = (c: Call) => {
    if (c.method === 'eth_getBlockByNumber') return { result: { hash: this.hashes.get(Number(c.params[0])) } };
    const { fromBlock, toBlock } = c.params[0] as { fromBlock: string; toBlock: string };
    const logs = [...this.pools.keys()].filter((b) => b >= Number(fromBlock) && b <= Number(toBlock)).map((b) => this.log(b));
    return { result: logs };
  };
}

describe('V4 pool index (Initialize logs)', () => {
  const node = new FakeNode();
  const chain = new FakeChain();
  before(async () => {
    await node.start();
    node.answer = chain.answer;
  });
  after(() => node.stop());
  const signal = new AbortController().signal;

  it('reads from from_block in log_range chunks, then only new blocks, and rewinds after a reorg', async () => {
    for (let b = 0; b <= 100; b++) chain.hashes.set(b, id(1000 + b));
    chain.pools.set(5, 1);
    chain.pools.set(95, 2);
    const index = new V4PoolIndex(new JsonRpcClient(node.url), MANAGER, 3, 25);
    node.calls = [];
    let pools = await index.sync({ number: 90, hash: id(1090) }, signal);
    assert.deepEqual(
      pools.map((p) => p.id),
      [id(1)],
    );
    assert.deepEqual(
      node.calls.map((c) => (c.params[0] as { fromBlock: string }).fromBlock),
      [hex(3), hex(28), hex(53), hex(78)],
    );
    assert.equal(pools[0].currency0, ZERO);
    assert.equal(pools[0].tickSpacing, 60);

    node.calls = [];
    await index.sync({ number: 90, hash: id(1090) }, signal);
    assert.equal(node.calls.length, 0, 'same head: nothing read');

    pools = await index.sync({ number: 100, hash: id(1100) }, signal);
    assert.deepEqual(
      pools.map((p) => p.id),
      [id(1), id(2)],
    );
    assert.deepEqual(
      node.calls.map((c) => c.method),
      ['eth_getBlockByNumber', 'eth_getLogs'],
      'checkpoint checked in the same batch',
    );
    assert.equal((node.calls[1].params[0] as { fromBlock: string }).fromBlock, hex(91));

    // A reorg replaces blocks 96..100 (same numbers, new hashes); pool 2 at block 95 is gone too.
    for (let b = 94; b <= 101; b++) chain.hashes.set(b, id(2000 + b));
    chain.pools.delete(95);
    node.calls = [];
    pools = await index.sync({ number: 101, hash: id(2101) }, signal);
    assert.deepEqual(
      pools.map((p) => p.id),
      [id(1)],
    );
    assert.ok(
      node.calls.some((c) => c.method === 'eth_getLogs' && Number((c.params[0] as { fromBlock: string }).fromBlock) <= 95),
      'rewound and read again',
    );
  });
});
