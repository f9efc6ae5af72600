import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { AbiCoder, Contract, id, type InterfaceAbi, MaxUint256, parseUnits, type Signer } from 'ethers';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { baseRequest, erc20, findPool, hop, routerContract, v2Out, type BaseRequest, type RouterPath } from './router-calls.js';

let chain: Devchain;
let user: Signer;
let router: Contract;
let snap: string;

const SIG_BY_ORDER_ID =
  'smartSwapByOrderId(uint256,(uint256,address,uint256,uint256,uint256),uint256[],(address[],address[],uint256[],bytes[],uint256)[][],(uint256,address,address,address,uint256,uint256,uint256,uint256,bool,bytes)[])';

function call(req: BaseRequest, amounts: bigint[], batches: RouterPath[][]): Promise<unknown> {
  return router.getFunction('smartSwapByOrderId').staticCall(0n, req, amounts, batches, []);
}

async function rejectsWith(promise: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(promise, (err: { reason?: string }) => {
    assert.equal(err.reason, reason);
    return true;
  });
}

describe('DexRouter ABI and checks', () => {
  let usdt: string;
  let wbnb: string;
  let amount: bigint;
  let oneHop: RouterPath;

  before(async () => {
    chain = await startDevchain();
    user = await chain.provider.getSigner(chain.user.address);
    router = routerContract(chain, user);
    usdt = chain.token('USDT').address;
    wbnb = chain.token('WBNB').address;
    amount = parseUnits('1000', 18);
    const pool = findPool(chain, 'swapa', 'WBNB', 'USDT');
    oneHop = hop(chain, [{ pool, tokenIn: usdt, tokenOut: wbnb, weight: 10000 }]);
    const tx = await erc20(chain, usdt, user).getFunction('approve').send(chain.addresses.tokenApprove, MaxUint256);
    await chain.mined(tx.hash);
  });
  after(async () => chain?.stop());
  beforeEach(async () => {
    snap = await chain.snapshot();
  });
  afterEach(async () => chain.revert(snap));

  it('has the public router selectors', () => {
    assert.equal(router.interface.getFunction('smartSwapByOrderId')!.format('sighash'), SIG_BY_ORDER_ID);
    assert.equal(router.interface.getFunction('smartSwapByOrderId')!.selector, '0xb80c2f09');
    assert.equal(id(SIG_BY_ORDER_ID).slice(0, 10), '0xb80c2f09');
    assert.equal(router.interface.getFunction('smartSwapTo')!.selector, '0x03b87e5f');
  });

  it('reverts "Route: expired" once the deadline has passed', async () => {
    const past = BigInt((await chain.provider.getBlock('latest'))!.timestamp - 1);
    await rejectsWith(call(baseRequest(usdt, wbnb, amount, { deadLine: past }), [amount], [[oneHop]]), 'Route: expired');
  });

  it('reverts "Route: fromTokenAmount must be > 0"', async () => {
    await rejectsWith(call(baseRequest(usdt, wbnb, 0n), [0n], [[oneHop]]), 'Route: fromTokenAmount must be > 0');
  });

  it('reverts "length mismatch" for batches vs amounts and inside a hop', async () => {
    await rejectsWith(call(baseRequest(usdt, wbnb, amount), [amount / 2n, amount / 2n], [[oneHop]]), 'length mismatch');
    const broken = { ...oneHop, assetTo: [] };
    await rejectsWith(call(baseRequest(usdt, wbnb, amount), [amount], [[broken]]), 'length mismatch');
  });

  it('reverts "totalWeight can not exceed 10000 limit"', async () => {
    const a = findPool(chain, 'swapa', 'WBNB', 'USDT');
    const b = findPool(chain, 'swapb', 'WBNB', 'USDT');
    const over = hop(chain, [
      { pool: a, tokenIn: usdt, tokenOut: wbnb, weight: 6000 },
      { pool: b, tokenIn: usdt, tokenOut: wbnb, weight: 4001 },
    ]);
    await rejectsWith(call(baseRequest(usdt, wbnb, amount), [amount], [[over]]), 'totalWeight can not exceed 10000 limit');
  });

  it('reverts "Min return not reached" one wei above the output, passes at it', async () => {
    const expected = await v2Out(chain, findPool(chain, 'swapa', 'WBNB', 'USDT'), usdt, amount);
    await rejectsWith(
      call(baseRequest(usdt, wbnb, amount, { minReturnAmount: expected + 1n }), [amount], [[oneHop]]),
      'Min return not reached',
    );
    assert.equal(await call(baseRequest(usdt, wbnb, amount, { minReturnAmount: expected }), [amount], [[oneHop]]), expected);
  });

  it('refuses a path whose first token is not the input token (no pulling other approvals)', async () => {
    const wrongStart = { ...oneHop, fromToken: BigInt(wbnb) };
    await rejectsWith(call(baseRequest(usdt, wbnb, amount), [amount], [[wrongStart]]), 'Route: path fromToken mismatch');
  });

  it('only the router can pull approved tokens, and only the proxy can use TokenApprove', async () => {
    const proxy = new Contract(chain.addresses.tokenApproveProxy, chain.compiled.TokenApproveProxy!.abi as InterfaceAbi, user);
    await rejectsWith(
      proxy.getFunction('claimTokens').staticCall(usdt, chain.user.address, chain.deployer, 1n),
      'TokenApproveProxy: access restricted',
    );
    const approve = new Contract(chain.addresses.tokenApprove, chain.compiled.TokenApprove!.abi as InterfaceAbi, user);
    await rejectsWith(
      approve.getFunction('claimTokens').staticCall(usdt, chain.user.address, chain.deployer, 1n),
      'TokenApprove: access restricted',
    );
  });

  it('V3 adapter callback refuses callers that are not pools of its factory', async () => {
    const adapter = new Contract(chain.addresses.sources.swapav3.adapter, chain.compiled.V3Adapter!.abi as InterfaceAbi, user);
    const data = AbiCoder.defaultAbiCoder().encode(['address', 'address', 'uint24'], [usdt, wbnb, 500]);
    await rejectsWith(adapter.getFunction('uniswapV3SwapCallback').staticCall(1n, 0n, data), 'V3Adapter: caller is not a pool');
  });
});
