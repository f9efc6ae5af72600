import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AbiCoder, Interface, keccak256 } from 'ethers';
import { ApiError } from '../../backend/http/errors.js';
import { DEFAULT_GAS_MODEL, gasModelFrom, routeGas } from '../../backend/swap/onchain/gas-model.js';
import { allowanceKey, balanceKey } from '../../backend/swap/onchain/storage-slots.js';
import { INITIALIZE_TOPIC, parseInitialize } from '../../backend/swap/onchain/v4-pool-index.js';
import { bitmapKey, parseSlot0, poolStateSlot, swapFee, tickKey, unusableReason } from '../../backend/swap/onchain/v4-state.js';
import { buildWrapResponse } from '../../backend/swap/route-builder.js';
import { parseRouteRequest } from '../../backend/swap/route-request.js';
import { loadChainSettings, type ChainSettings } from '../../backend/swap/swap-settings.js';
import { encodeWrap, wrapDirection } from '../../backend/swap/wrap.js';
import { NATIVE } from './check-calldata.js';
import { testAddress } from './decode-swap.js';

const coder = AbiCoder.defaultAbiCoder();
const WRAPPED = testAddress(0x9000);
const SENDER = testAddress(0x5e0d);
const OTHER = testAddress(0x0be7);
// Written from the facts sheet's signatures, not the backend's ABI module.
const FACTS = new Interface([
  'function swapWrap(uint256 orderId, uint256 rawdata)',
  'function swapWrapToWithBaseRequest(uint256 orderId, address receiver, (uint256,address,uint256,uint256,uint256) baseRequest)',
]);

describe('wraps', () => {
  it('recognises exactly native <-> wrapped native', () => {
    assert.equal(wrapDirection(NATIVE, WRAPPED, WRAPPED.toLowerCase()), 'wrap');
    assert.equal(wrapDirection(WRAPPED, NATIVE, WRAPPED), 'unwrap');
    assert.equal(wrapDirection(NATIVE, testAddress(1), WRAPPED), undefined);
    assert.equal(wrapDirection(WRAPPED, testAddress(1), WRAPPED), undefined);
  });

  it('encodes swapWrap (bit 255 = reversed, low 128 bits = amount) and the To variant', () => {
    const opts = { sender: SENDER, recipient: SENDER, wrapped: WRAPPED, minReturn: 5n, deadline: 1_900_000_000 };
    const wrap = FACTS.parseTransaction({ data: encodeWrap('wrap', 123n, opts) })!;
    assert.equal(wrap.selector, '0x01617fab');
    assert.deepEqual(wrap.args.toArray(), [0n, 123n]);
    const unwrap = FACTS.parseTransaction({ data: encodeWrap('unwrap', 123n, opts) })!;
    assert.equal(unwrap.args[1], (1n << 255n) | 123n);
    const to = FACTS.parseTransaction({ data: encodeWrap('unwrap', 9n, { ...opts, recipient: OTHER }) })!;
    assert.equal(to.selector, '0x98d2ac62');
    assert.equal(to.args[1], OTHER);
    assert.deepEqual(to.args[2].toArray(), [BigInt(WRAPPED), NATIVE, 9n, 5n, 1_900_000_000n]);
    assert.throws(() => encodeWrap('wrap', 1n << 128n, opts), RangeError);
  });

  it('answers amountOut == amountIn with one wrap hop, and rejects amounts beyond 128 bits', () => {
    const settings: ChainSettings = {
      chain: 'bsc',
      router: testAddress(0x4007),
      token_approve: testAddress(0xa9),
      wrapped_native: WRAPPED,
    };
    const req = parseRouteRequest({ chain: 'bsc', tokenIn: NATIVE, tokenOut: WRAPPED, amountIn: '1000', sender: SENDER });
    const res = buildWrapResponse(req, 'wrap', settings);
    assert.equal(res.amountOut, '1000');
    assert.equal(res.value, '1000');
    assert.equal(res.swapType, 'simple');
    assert.equal(res.routeInfo.gasSource, 'model');
    assert.equal(res.gas, String(DEFAULT_GAS_MODEL.wrap));
    assert.deepEqual(
      res.routeInfo.paths[0].hops.map((h) => [h.dex, h.version, h.amountIn, h.amountOut]),
      [['wrap', 'wrap', '1000', '1000']],
    );
    const big = parseRouteRequest({ chain: 'bsc', tokenIn: NATIVE, tokenOut: WRAPPED, amountIn: (1n << 128n).toString(), sender: SENDER });
    assert.throws(
      () => buildWrapResponse(big, 'wrap', settings),
      (e: unknown) => e instanceof ApiError && e.field === 'amountIn',
    );
  });
});

describe('gas model', () => {
  // facts/dexrouter.md, the production router's measured gasUsed for this project's calldata.
  const production: [string, number, number][] = [
    ['V2 simple', routeGas([{ hops: [{ kind: 'v2' }] }], false, false), 141_600],
    ['V3 simple', routeGas([{ hops: [{ kind: 'v3' }] }], false, false), 176_900],
    ['multihop V2 > V3 > V2', routeGas([{ hops: [{ kind: 'v2' }, { kind: 'v3' }, { kind: 'v2' }] }], false, false), 317_500],
    ['native in, V2 simple', routeGas([{ hops: [{ kind: 'v2' }] }], true, false), 134_400],
    ['native out, V3 simple', routeGas([{ hops: [{ kind: 'v3' }] }], false, true), 221_700],
    [
      'native out, 3 V2 paths',
      routeGas(
        [1, 2, 3].map(() => ({ hops: [{ kind: 'v2' as const }] })),
        false,
        true,
      ),
      386_400,
    ],
    ['smartSwapTo, native out, V3', routeGas([{ hops: [{ kind: 'v3' }] }], false, true, DEFAULT_GAS_MODEL, true), 231_200],
  ];
  for (const [name, model, measured] of production) {
    it(`defaults hold within 10 % on the production router: ${name}`, () => {
      assert.ok(Math.abs(model - measured) / measured <= 0.1, `${model} vs ${measured}`);
    });
  }

  it('swap.yaml gas_model overrides single constants', () => {
    const m = gasModelFrom({ v2_hop: 50_000, native_out: 1 });
    assert.equal(m.v2Hop, 50_000);
    assert.equal(m.nativeOut, 1);
    assert.equal(m.v3Hop, DEFAULT_GAS_MODEL.v3Hop);
  });

  it('swap.yaml validates gas_model, gas_simulation and the v4 block', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swap-v4-settings-'));
    const file = path.join(dir, 'swap.yaml');
    const base = `chains:\n  bsc:\n    gas_simulation: false\n    sources:\n      swapav3: {kind: v3, adapter: "${testAddress(2)}", v4: {pool_manager: "${testAddress(3)}", adapter: "${testAddress(4)}", from_block: 12, exchanges: [uniswap-v4]}}\n`;
    writeFileSync(file, `${base}    gas_model: {v2_hop: 60000, native_in: -5000}\n`);
    const s = await loadChainSettings(file, 'bsc', {});
    assert.equal(s.gas_simulation, false);
    assert.deepEqual(s.gas_model, { v2_hop: 60000, native_in: -5000 });
    assert.equal(s.sources?.swapav3?.v4?.from_block, 12);
    writeFileSync(file, `${base}    gas_model: {v2_hops: 60000}\n`);
    await assert.rejects(loadChainSettings(file, 'bsc', {}), /gas_model/);
  });

  it('simulateGas must be a boolean', () => {
    const body = { chain: 'bsc', tokenIn: NATIVE, tokenOut: WRAPPED, amountIn: '1', sender: SENDER };
    assert.equal(parseRouteRequest({ ...body, simulateGas: false }).simulateGas, false);
    assert.throws(
      () => parseRouteRequest({ ...body, simulateGas: 'no' }),
      (e: unknown) => e instanceof ApiError && e.field === 'simulateGas',
    );
  });
});

describe('storage slots and V4 state', () => {
  it('mapping keys follow the Solidity and Vyper layouts', () => {
    const holder = testAddress(0xdead);
    const spender = testAddress(0xbeef);
    const sol = keccak256(coder.encode(['address', 'uint256'], [holder, 3]));
    assert.equal(balanceKey({ slot: 3, vyper: false }, holder), sol);
    assert.equal(balanceKey({ slot: 3, vyper: true }, holder), keccak256(coder.encode(['uint256', 'address'], [3, holder])));
    assert.equal(
      allowanceKey({ slot: 4, vyper: false }, holder, spender),
      keccak256(coder.encode(['address', 'bytes32'], [spender, keccak256(coder.encode(['address', 'uint256'], [holder, 4]))])),
    );
  });

  it('slot0 unpacks price, signed tick, protocol fees and LP fee; the fee rule adds the protocol fee on top', () => {
    const tick = -600;
    const word =
      79228162514264337593543950336n | (BigInt.asUintN(24, BigInt(tick)) << 160n) | (BigInt(1000 | (500 << 12)) << 184n) | (3000n << 208n);
    assert.deepEqual(parseSlot0(word), { sqrtPriceX96: 79228162514264337593543950336n, tick: -600, protocolFee: [1000, 500], lpFee: 3000 });
    assert.equal(swapFee(1000, 3000), 3997);
    assert.equal(swapFee(0, 3000), 3000);
  });

  it('state, tick and bitmap slots follow the PoolManager layout', () => {
    const id = `0x${'ab'.repeat(32)}`;
    const state = poolStateSlot(id);
    assert.equal(state, BigInt(keccak256(coder.encode(['bytes32', 'uint256'], [id, 6]))));
    assert.equal(tickKey(state, -600), keccak256(coder.encode(['int256', 'uint256'], [-600, state + 4n])));
    assert.equal(bitmapKey(state, -1), keccak256(coder.encode(['int256', 'uint256'], [-1, state + 5n])));
  });

  it('hooked and dynamic-fee pools are not routable, hookless static ones are', () => {
    assert.equal(unusableReason(`0x${'0'.repeat(40)}`, 3000), undefined);
    assert.match(unusableReason('0xc0ffee000000000000000000000000000000c044', 100)!, /swap permissions/);
    assert.match(unusableReason('0xd1fee0000000000000000000000000000000c000', 0x800000)!, /dynamic/);
    assert.match(unusableReason('0x0000000000000000000000000000000000000400', 500)!, /hooks/);
  });

  it('Initialize logs carry the whole key', () => {
    const c0 = `0x${'0'.repeat(40)}`;
    const c1 = testAddress(0x1234).toLowerCase();
    const log = {
      topics: [INITIALIZE_TOPIC, `0x${'cd'.repeat(32)}`, coder.encode(['address'], [c0]), coder.encode(['address'], [c1])],
      data: coder.encode(['uint24', 'int24', 'address', 'uint160', 'int24'], [2500, 50, c0, 1n << 96n, -5]),
      blockNumber: '0x10',
    };
    assert.deepEqual(parseInitialize(log), {
      id: `0x${'cd'.repeat(32)}`,
      currency0: c0,
      currency1: c1,
      fee: 2500,
      tickSpacing: 50,
      hooks: c0,
      block: 16,
    });
  });
});
