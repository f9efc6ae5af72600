import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { type Contract, type TransactionReceipt, MaxUint256, parseUnits, type Signer } from 'ethers';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import {
  balanceOf,
  baseRequest,
  erc20,
  findPool,
  hop,
  NATIVE,
  routerContract,
  v2Out,
  v3Quote,
  type BaseRequest,
  type RouterPath,
} from './router-calls.js';

// One anvil and one deployment for the file; every case runs on a fresh snapshot.
let chain: Devchain;
let user: Signer;
let router: Contract;
let snap: string;
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'; // anvil account #2

async function swap(
  req: BaseRequest,
  amounts: bigint[],
  batches: RouterPath[][],
  opts: { value?: bigint; receiver?: string } = {},
): Promise<{ returned: bigint; receipt: TransactionReceipt; gasFee: bigint }> {
  const args = opts.receiver ? [7n, opts.receiver, req, amounts, batches, []] : [7n, req, amounts, batches, []];
  const fn = router.getFunction(opts.receiver ? 'smartSwapTo' : 'smartSwapByOrderId');
  const returned = (await fn.staticCall(...args, { value: opts.value ?? 0n })) as bigint;
  // A fixed gas limit, not eth_estimateGas: these cases check amounts, and an estimate made at one
  // block time can fall short in the next block (V2/V3 write their price accumulators and oracle
  // only when the block's time moved on): one run in five on a loaded machine reverted out of gas
  // after its staticCall had succeeded. Gas itself is checked by the gas-model tests.
  const tx = await fn.send(...args, { value: opts.value ?? 0n, gasLimit: 8_000_000n });
  const receipt = await chain.mined(tx.hash);
  assert.equal(receipt.status, 1);
  return { returned, receipt, gasFee: receipt.gasUsed * receipt.gasPrice };
}

const sym = (s: string): string => chain.token(s).address;
const units = (n: string, s: string): bigint => parseUnits(n, chain.token(s).decimals);

describe('DexRouter executes routes as the pools price them', () => {
  before(async () => {
    chain = await startDevchain();
    user = await chain.provider.getSigner(chain.user.address);
    router = routerContract(chain, user);
    for (const t of chain.tokens) {
      const tx = await erc20(chain, t.address, user).getFunction('approve').send(chain.addresses.tokenApprove, MaxUint256);
      await chain.mined(tx.hash);
    }
  });
  after(async () => chain?.stop());
  beforeEach(async () => {
    snap = await chain.snapshot();
  });
  afterEach(async () => chain.revert(snap));

  it('single V2 hop pays the V2 formula and pulls exactly the input', async () => {
    const pool = findPool(chain, 'swapa', 'WBNB', 'USDT');
    const amount = units('10000', 'USDT');
    const expected = await v2Out(chain, pool, sym('USDT'), amount);
    const usdtBefore = await balanceOf(chain, sym('USDT'), chain.user.address);
    const wbnbBefore = await balanceOf(chain, sym('WBNB'), chain.user.address);
    const legs = [{ pool, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 10000 }];
    const { returned } = await swap(baseRequest(sym('USDT'), sym('WBNB'), amount), [amount], [[hop(chain, legs)]]);
    assert.equal(returned, expected);
    assert.equal((await balanceOf(chain, sym('WBNB'), chain.user.address)) - wbnbBefore, expected);
    assert.equal(usdtBefore - (await balanceOf(chain, sym('USDT'), chain.user.address)), amount);
  });

  it('single V3 hop crossing initialized ticks pays what the pool quotes', async () => {
    const pool = findPool(chain, 'swapav3', 'WBNB', 'USDT', 500);
    const amount = units('200000', 'USDT');
    const q = await v3Quote(chain, pool, sym('USDT'), amount);
    const [lo, hi] = q.tickBefore < q.tickAfter ? [q.tickBefore, q.tickAfter] : [q.tickAfter, q.tickBefore];
    const crossed = pool.positions!.flatMap((p) => [p.lower, p.upper]).filter((t) => BigInt(t) > lo && BigInt(t) <= hi);
    assert.ok(crossed.length >= 1, `trade should cross a range boundary (ticks ${lo}..${hi})`);
    const before = await balanceOf(chain, sym('WBNB'), chain.user.address);
    const legs = [{ pool, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 10000 }];
    const { returned } = await swap(baseRequest(sym('USDT'), sym('WBNB'), amount), [amount], [[hop(chain, legs)]]);
    assert.equal(returned, q.out);
    assert.equal((await balanceOf(chain, sym('WBNB'), chain.user.address)) - before, q.out);
    assert.equal(await balanceOf(chain, sym('USDT'), chain.addresses.sources.swapav3.adapter), 0n);
  });

  it('splits one hop over a V2 and a V3 pool by weight, remainder to the last pool', async () => {
    const v2 = findPool(chain, 'swapa', 'WBNB', 'USDT');
    const v3 = findPool(chain, 'swapav3', 'WBNB', 'USDT', 500);
    const amount = units('50000', 'USDT') + 7n;
    const part0 = (amount * 3333n) / 10000n;
    const part1 = amount - part0; // one wei more than floor(amount * 6667 / 10000)
    const expected = (await v2Out(chain, v2, sym('USDT'), part0)) + (await v3Quote(chain, v3, sym('USDT'), part1)).out;
    const usdtBefore = await balanceOf(chain, sym('USDT'), chain.user.address);
    const legs = [
      { pool: v2, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 3333 },
      { pool: v3, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 6667 },
    ];
    const { returned } = await swap(baseRequest(sym('USDT'), sym('WBNB'), amount), [amount], [[hop(chain, legs)]]);
    assert.equal(returned, expected);
    assert.equal(usdtBefore - (await balanceOf(chain, sym('USDT'), chain.user.address)), amount);
  });

  it('2-hop path DOGE -> WBNB (V2) -> USDC (V3) forwards the middle token to the V3 adapter', async () => {
    const p1 = findPool(chain, 'swapa', 'DOGE', 'WBNB');
    const p2 = findPool(chain, 'swapb-v3', 'WBNB', 'USDC', 500);
    const amount = units('100000', 'DOGE');
    const mid = await v2Out(chain, p1, sym('DOGE'), amount);
    const expected = (await v3Quote(chain, p2, sym('WBNB'), mid)).out;
    const path = [
      hop(chain, [{ pool: p1, tokenIn: sym('DOGE'), tokenOut: sym('WBNB'), weight: 10000 }]),
      hop(chain, [{ pool: p2, tokenIn: sym('WBNB'), tokenOut: sym('USDC'), weight: 10000 }]),
    ];
    const before = await balanceOf(chain, sym('USDC'), chain.user.address);
    const { returned } = await swap(baseRequest(sym('DOGE'), sym('USDC'), amount), [amount], [path]);
    assert.equal(returned, expected);
    assert.equal((await balanceOf(chain, sym('USDC'), chain.user.address)) - before, expected);
    assert.equal(await balanceOf(chain, sym('WBNB'), chain.addresses.router), 0n);
  });

  it('3-hop path DOGE -> WBNB -> USDC -> MEME through both connectors', async () => {
    const p1 = findPool(chain, 'swapa', 'DOGE', 'WBNB');
    const p2 = findPool(chain, 'swapb-v3', 'WBNB', 'USDC', 500);
    const p3 = findPool(chain, 'swapb', 'USDC', 'MEME');
    const amount = units('50000', 'DOGE');
    const mid1 = await v2Out(chain, p1, sym('DOGE'), amount);
    const mid2 = (await v3Quote(chain, p2, sym('WBNB'), mid1)).out;
    const expected = await v2Out(chain, p3, sym('USDC'), mid2);
    const path = [
      hop(chain, [{ pool: p1, tokenIn: sym('DOGE'), tokenOut: sym('WBNB'), weight: 10000 }]),
      hop(chain, [{ pool: p2, tokenIn: sym('WBNB'), tokenOut: sym('USDC'), weight: 10000 }]),
      hop(chain, [{ pool: p3, tokenIn: sym('USDC'), tokenOut: sym('MEME'), weight: 10000 }]),
    ];
    const { returned } = await swap(baseRequest(sym('DOGE'), sym('MEME'), amount), [amount], [path]);
    assert.equal(returned, expected);
  });

  it('two parallel batches, the second a 2-hop path whose last hop splits via the router', async () => {
    const direct = findPool(chain, 'swapb', 'WBNB', 'USDT');
    const toUsdc = findPool(chain, 'swapa', 'USDT', 'USDC');
    const usdcV2 = findPool(chain, 'swapa', 'WBNB', 'USDC');
    const usdcV3 = findPool(chain, 'swapb-v3', 'WBNB', 'USDC', 500);
    const [a0, a1] = [units('20000', 'USDT'), units('30000', 'USDT')];
    const out0 = await v2Out(chain, direct, sym('USDT'), a0);
    const mid = await v2Out(chain, toUsdc, sym('USDT'), a1);
    const half = (mid * 5000n) / 10000n;
    const out1 = (await v2Out(chain, usdcV2, sym('USDC'), half)) + (await v3Quote(chain, usdcV3, sym('USDC'), mid - half)).out;
    const batches = [
      [hop(chain, [{ pool: direct, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 10000 }])],
      [
        hop(chain, [{ pool: toUsdc, tokenIn: sym('USDT'), tokenOut: sym('USDC'), weight: 10000 }]),
        hop(chain, [
          { pool: usdcV2, tokenIn: sym('USDC'), tokenOut: sym('WBNB'), weight: 5000 },
          { pool: usdcV3, tokenIn: sym('USDC'), tokenOut: sym('WBNB'), weight: 5000 },
        ]),
      ],
    ];
    const { returned } = await swap(baseRequest(sym('USDT'), sym('WBNB'), a0 + a1), [a0, a1], batches);
    assert.equal(returned, out0 + out1);
    assert.equal(await balanceOf(chain, sym('USDC'), chain.addresses.router), 0n);
  });

  it('native input: msg.value is wrapped and swapped', async () => {
    const pool = findPool(chain, 'swapa', 'WBNB', 'USDT');
    const amount = parseUnits('10', 18);
    const expected = await v2Out(chain, pool, sym('WBNB'), amount);
    const nativeBefore = await balanceOf(chain, NATIVE, chain.user.address);
    const usdtBefore = await balanceOf(chain, sym('USDT'), chain.user.address);
    const legs = [{ pool, tokenIn: sym('WBNB'), tokenOut: sym('USDT'), weight: 10000 }];
    const { returned, gasFee } = await swap(baseRequest(NATIVE, sym('USDT'), amount), [amount], [[hop(chain, legs)]], { value: amount });
    assert.equal(returned, expected);
    assert.equal((await balanceOf(chain, sym('USDT'), chain.user.address)) - usdtBefore, expected);
    assert.equal(nativeBefore - (await balanceOf(chain, NATIVE, chain.user.address)), amount + gasFee);
    assert.equal(await balanceOf(chain, NATIVE, chain.addresses.router), 0n);
  });

  it('native output: the wrapped output is unwrapped and paid as native coin', async () => {
    const pool = findPool(chain, 'swapav3', 'WBNB', 'USDT', 500);
    const amount = units('30000', 'USDT');
    const expected = (await v3Quote(chain, pool, sym('USDT'), amount)).out;
    const before = await balanceOf(chain, NATIVE, chain.user.address);
    const legs = [{ pool, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 10000 }];
    const { returned, gasFee } = await swap(baseRequest(sym('USDT'), NATIVE, amount), [amount], [[hop(chain, legs)]]);
    assert.equal(returned, expected);
    assert.equal((await balanceOf(chain, NATIVE, chain.user.address)) - before, expected - gasFee);
    assert.equal(await balanceOf(chain, sym('WBNB'), chain.addresses.router), 0n);
  });

  it('smartSwapTo pays another receiver, not the sender', async () => {
    const pool = findPool(chain, 'swapb', 'WBNB', 'USDT');
    const amount = units('5000', 'USDT');
    const expected = await v2Out(chain, pool, sym('USDT'), amount);
    const senderBefore = await balanceOf(chain, sym('WBNB'), chain.user.address);
    const otherBefore = await balanceOf(chain, sym('WBNB'), OTHER);
    const legs = [{ pool, tokenIn: sym('USDT'), tokenOut: sym('WBNB'), weight: 10000 }];
    const { returned, receipt } = await swap(baseRequest(sym('USDT'), sym('WBNB'), amount), [amount], [[hop(chain, legs)]], {
      receiver: OTHER,
    });
    assert.equal(returned, expected);
    assert.equal((await balanceOf(chain, sym('WBNB'), OTHER)) - otherBefore, expected);
    assert.equal(await balanceOf(chain, sym('WBNB'), chain.user.address), senderBefore);
    const orderIds = receipt.logs.map((l) => router.interface.parseLog(l)).filter((l) => l?.name === 'SwapOrderId');
    assert.deepEqual(
      orderIds.map((l) => l!.args[0]),
      [7n],
    );
  });
});
