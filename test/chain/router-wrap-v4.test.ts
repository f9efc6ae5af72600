import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { AbiCoder, Contract, id, type InterfaceAbi, MaxUint256, parseUnits, type Signer } from 'ethers';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { balanceOf, baseRequest, erc20, NATIVE, rawData, routerContract } from './router-calls.js';

const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const ZERO = '0x0000000000000000000000000000000000000000';
const coder = AbiCoder.defaultAbiCoder();

describe('DexRouter swapWrap and the V4 adapter', () => {
  let chain: Devchain;
  let user: Signer;
  let router: Contract;
  let snap: string;
  let wbnb: string;

  before(async () => {
    chain = await startDevchain();
    user = await chain.provider.getSigner(chain.user.address);
    router = routerContract(chain, user);
    wbnb = chain.token('WBNB').address;
    for (const t of chain.tokens)
      await chain.mined((await erc20(chain, t.address, user).getFunction('approve').send(chain.addresses.tokenApprove, MaxUint256)).hash);
  });
  after(async () => chain?.stop());
  beforeEach(async () => {
    snap = await chain.snapshot();
  });
  afterEach(async () => chain.revert(snap));

  it('has the public router selectors', () => {
    assert.equal(router.interface.getFunction('swapWrap')!.selector, id('swapWrap(uint256,uint256)').slice(0, 10));
    assert.equal(router.interface.getFunction('swapWrap')!.selector, '0x01617fab');
    assert.equal(router.interface.getFunction('swapWrapToWithBaseRequest')!.selector, '0x98d2ac62');
  });

  it('wraps msg.value for the sender and unwraps through the approval contract', async () => {
    const amount = parseUnits('3', 18);
    const before = await balanceOf(chain, wbnb, chain.user.address);
    await chain.mined((await router.getFunction('swapWrap').send(1n, amount, { value: amount })).hash);
    assert.equal((await balanceOf(chain, wbnb, chain.user.address)) - before, amount);
    const nativeBefore = await balanceOf(chain, NATIVE, chain.user.address);
    const receipt = await chain.mined((await router.getFunction('swapWrap').send(2n, (1n << 255n) | amount)).hash);
    const fee = receipt.gasUsed * receipt.gasPrice;
    assert.equal((await balanceOf(chain, NATIVE, chain.user.address)) - nativeBefore + fee, amount);
    assert.equal(await balanceOf(chain, wbnb, chain.user.address), before);
  });

  it('swapWrapToWithBaseRequest pays the receiver and checks the pair, value and deadline', async () => {
    const amount = parseUnits('1', 18);
    const fn = router.getFunction('swapWrapToWithBaseRequest');
    const before = await balanceOf(chain, NATIVE, OTHER);
    await chain.mined((await fn.send(0n, OTHER, baseRequest(wbnb, NATIVE, amount))).hash);
    assert.equal((await balanceOf(chain, NATIVE, OTHER)) - before, amount);
    await assert.rejects(
      fn.staticCall(0n, OTHER, baseRequest(NATIVE, chain.token('USDT').address, amount), { value: amount }),
      /SwapWrap: invalid token pair/,
    );
    await assert.rejects(fn.staticCall(0n, OTHER, baseRequest(NATIVE, wbnb, amount), { value: amount - 1n }), /SwapWrap: value not match/);
    await assert.rejects(
      fn.staticCall(0n, OTHER, baseRequest(NATIVE, wbnb, amount, { deadLine: 1n }), { value: amount }),
      /Route: expired/,
    );
  });

  it('the V4 adapter pays exactly what the PoolManager quotes, and only the PoolManager may call back', async () => {
    const pool = chain.v4Pools.find((p) => p.a === 'USDC' && p.b === 'CAKE')!;
    const usdc = chain.token('USDC').address;
    const cake = chain.token('CAKE').address;
    const amount = parseUnits('250', 6);
    const probe = new Contract(chain.addresses.v4.quoteProbe, chain.compiled.V4QuoteProbe!.abi as InterfaceAbi, chain.provider);
    const zeroForOne = BigInt(usdc) < BigInt(cake);
    const [a0, a1] = (await probe.getFunction('quote').staticCall(Object.values(pool.key), zeroForOne, -amount)) as [bigint, bigint];
    const expected = zeroForOne ? a1 : a0;
    const adapter = chain.addresses.v4.adapter;
    const path = {
      mixAdapters: [adapter],
      assetTo: [adapter],
      rawData: [rawData(ZERO, 10000, BigInt(usdc) > BigInt(cake))],
      extraData: [coder.encode(['address', 'address', 'uint24', 'int24'], [usdc, cake, pool.key.fee, pool.key.tickSpacing])],
      fromToken: BigInt(usdc),
    };
    const before = await balanceOf(chain, cake, chain.user.address);
    const args = [0n, baseRequest(usdc, cake, amount), [amount], [[path]], []];
    assert.equal(await router.getFunction('smartSwapByOrderId').staticCall(...args), expected);
    await chain.mined((await router.getFunction('smartSwapByOrderId').send(...args)).hash);
    assert.equal((await balanceOf(chain, cake, chain.user.address)) - before, expected);
    assert.equal(await balanceOf(chain, usdc, adapter), 0n, 'the adapter keeps nothing');
    const adapterAbi = ['function unlockCallback(bytes) returns (bytes)'];
    const asUser = new Contract(adapter, adapterAbi, user);
    await assert.rejects(asUser.getFunction('unlockCallback').staticCall('0x'), /caller is not the PoolManager/);
  });
});
