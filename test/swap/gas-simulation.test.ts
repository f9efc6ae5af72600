import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GasSimulator } from '../../backend/swap/onchain/gas-simulation.js';
import { NATIVE } from './check-calldata.js';
import { FakeNode } from './fake-node.js';
import { testAddress } from './decode-swap.js';

const tx = (url: string, tokenIn = NATIVE) => ({
  rpcUrl: url,
  sender: testAddress(0x5e0d),
  to: testAddress(0x4007),
  data: '0x01617fab',
  value: tokenIn === NATIVE ? 10n : 0n,
  tokenIn,
  amountIn: 10n,
  spender: testAddress(0xa9),
});

describe('gas simulation against nodes that cannot or will not simulate', () => {
  const node = new FakeNode();
  before(() => node.start());
  after(() => node.stop());

  it('uses eth_estimateGas with the sender funded through a state override', async () => {
    node.calls = [];
    node.answer = () => ({ result: '0x1d4c0' });
    const gas = await new GasSimulator().estimate(tx(node.url));
    assert.equal(gas, 120_000n);
    const [call] = node.calls;
    assert.equal(call.method, 'eth_estimateGas');
    const overrides = call.params[2] as Record<string, { balance?: string }>;
    assert.ok(BigInt(overrides[testAddress(0x5e0d)].balance!) > 10n);
  });

  it('a node that refuses the override argument is remembered and not asked again', async () => {
    const sim = new GasSimulator();
    node.calls = [];
    node.answer = () => ({ error: { code: -32602, message: 'invalid params: too many arguments, want at most 2' } });
    assert.equal(await sim.estimate(tx(node.url)), undefined);
    assert.equal(sim.refusesOverrides(node.url), true);
    const before = node.calls.length;
    assert.equal(await sim.estimate(tx(node.url)), undefined);
    assert.equal(node.calls.length, before, 'no second attempt');
  });

  it('a reverting simulation falls back for this request only', async () => {
    const sim = new GasSimulator();
    node.answer = () => ({ error: { code: 3, message: 'execution reverted: Route: expired' } });
    assert.equal(await sim.estimate(tx(node.url)), undefined);
    assert.equal(sim.refusesOverrides(node.url), false);
  });

  it('a token whose balance and allowance slots cannot be found falls back, and is probed once', async () => {
    const sim = new GasSimulator();
    node.calls = [];
    node.answer = () => ({ result: `0x${'0'.repeat(64)}` }); // no override ever shows through
    const token = testAddress(0x70c);
    assert.equal(await sim.estimate(tx(node.url, token)), undefined);
    // One balanceOf and one allowance call, each with every candidate slot overridden to a marker of its own.
    const calls = node.calls.filter((c) => c.method === 'eth_call');
    const probes = calls.length;
    assert.equal(probes, 2, `${probes} probe calls`);
    const diff = (calls[0].params[2] as Record<string, { stateDiff: Record<string, string> }>)[token].stateDiff;
    assert.ok(Object.keys(diff).length > 20, `${Object.keys(diff).length} candidate slots`);
    assert.equal(new Set(Object.values(diff)).size, Object.keys(diff).length, 'a marker per slot');
    assert.equal(await sim.estimate(tx(node.url, token)), undefined);
    assert.equal(node.calls.filter((c) => c.method === 'eth_call').length, probes, 'the answer is cached per token');
    assert.equal(node.calls.filter((c) => c.method === 'eth_estimateGas').length, 0);
  });
});
