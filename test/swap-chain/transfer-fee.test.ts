import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, ContractFactory, parseUnits, type InterfaceAbi, type JsonRpcSigner } from 'ethers';
import { SwapChainHarness } from './chain-harness.js';

/**
 * Fee-on-transfer tokens (DESIGN 17): a solc-compiled token that takes a fee on every transfer,
 * with a V2 pool against USDT on the devchain. The builder measures the fee by simulating
 * transfers and refuses the route (400 unsupported_token naming the fee); the same contract
 * with no fee is routed and executes exactly on the router.
 */
describe('fee-on-transfer tokens on the devchain', () => {
  let h: SwapChainHarness;
  let deployer: JsonRpcSigner;
  let taxed: string;
  let plain: string;
  const E18 = 10n ** 18n;

  /** A FeeOnTransferToken with a swapa (V2) pool of 100,000 of it against 100,000 USDT. */
  async function tokenWithPool(symbol: string, feeBps: number): Promise<string> {
    const fot = h.chain.compiled.FeeOnTransferToken!;
    const factory = new ContractFactory(fot.abi as InterfaceAbi, fot.bytecode, deployer);
    const token = await factory.deploy(symbol, symbol, 18, feeBps);
    await h.chain.mined(token.deploymentTransaction()!.hash);
    const address = await token.getAddress();
    const usdt = h.chain.token('USDT');
    const v2 = new Contract(h.chain.addresses.sources.swapa.factory, h.chain.uniswap.v2Factory.abi as InterfaceAbi, deployer);
    await h.chain.mined((await v2.getFunction('createPair').send(address, usdt.address)).hash);
    const pair = (await v2.getFunction('getPair')(address, usdt.address)) as string;
    const send = async (c: Contract, fn: string, args: unknown[]) => h.chain.mined((await c.getFunction(fn).send(...args)).hash);
    const t = new Contract(address, fot.abi as InterfaceAbi, deployer);
    await send(t, 'mint', [h.chain.deployer, 200_000n * E18]);
    await send(t, 'mint', [h.chain.user.address, 1_000n * E18]);
    await send(t, 'transfer', [pair, 100_000n * E18]);
    const tokenAbi = h.chain.compiled.TestToken!.abi as InterfaceAbi;
    await send(new Contract(usdt.address, tokenAbi, deployer), 'transfer', [pair, parseUnits('100000', usdt.decimals)]);
    await send(new Contract(pair, h.chain.uniswap.v2Pair.abi as InterfaceAbi, deployer), 'mint', [h.chain.deployer]);
    return address;
  }

  before(async () => {
    h = await SwapChainHarness.start();
    deployer = await h.chain.provider.getSigner(h.chain.deployer);
    taxed = await tokenWithPool('TAX', 500);
    plain = await tokenWithPool('NOTAX', 0);
    // The new pairs' price accumulators are still zero. A simulation at a block of the same second
    // as their mint skips the first swap's writes of them (zero to non-zero, ~40k gas) that the
    // wallet's later transaction pays, more than the builder's headroom for them (12k, sized for
    // pairs that traded before): a later second makes the simulation see them.
    await h.chain.provider.send('evm_increaseTime', [2]);
    await h.chain.provider.send('evm_mine', []);
  });
  after(async () => {
    await h?.stop();
  });

  it('refuses a taxed input token with unsupported_token naming the fee it measured', async () => {
    const res = await h.build({ tokenIn: taxed, tokenOut: h.token('USDT'), amountIn: (100n * E18).toString() });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'unsupported_token');
    assert.equal(res.body.error.field, 'tokenIn');
    assert.match(res.body.error.message, /fee on transfer/);
    assert.match(res.body.error.message, /5\.00 %/, 'names the 5 % fee');
  });

  it('refuses a taxed output token the same way', async () => {
    const usdt = h.chain.token('USDT');
    const res = await h.build({ tokenIn: usdt.address, tokenOut: taxed, amountIn: parseUnits('100', usdt.decimals).toString() });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'unsupported_token');
    assert.equal(res.body.error.field, 'tokenOut');
    assert.match(res.body.error.message, /5\.00 %/);
  });

  it('routes the same contract without a fee and the route executes exactly on the router', async () => {
    for (const [tokenIn, tokenOut, amountIn] of [
      [plain, h.token('USDT'), (100n * E18).toString()],
      [h.token('USDT'), plain, parseUnits('50', h.chain.token('USDT').decimals).toString()],
    ]) {
      const res = await h.build({ tokenIn, tokenOut, amountIn });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.routeInfo.paths.some((p: any) => p.hops.some((x: any) => x.pool && x.version === 'v2')));
      const { received } = await h.execute(res.body);
      assert.equal(received, BigInt(res.body.amountOut), 'received exactly amountOut');
    }
  });

  it("a pair minted in the latest block's second: the simulated gas covers its accumulators' first writes when the swap lands later", async () => {
    const fresh = await tokenWithPool('FRESH', 0);
    // No block since the mint: the simulation runs in the pair's own second (accumulators not
    // updated there), while the wallet's transaction lands in a later one and writes them from zero.
    const res = await h.build({ tokenIn: fresh, tokenOut: h.token('USDT'), amountIn: (100n * E18).toString() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.routeInfo.gasSource, 'simulation');
    await h.chain.provider.send('evm_increaseTime', [2]);
    // Sent with exactly the returned gas as its limit, as a wallet does.
    const { received } = await h.execute(res.body);
    assert.equal(received, BigInt(res.body.amountOut), 'received exactly amountOut');
  });
});
