import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { Contract, type JsonRpcSigner, type TransactionReceipt } from 'ethers';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { api, BackendProcess, tempDir } from '../helpers/backend-process.js';

export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const ERC20_ABI = [
  'function approve(address,uint256) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
];

/** One devchain and one real backend (swap.yaml written by the devchain into its data dir). */
export class SwapChainHarness {
  chain!: Devchain;
  backend!: BackendProcess;
  user!: JsonRpcSigner;

  static async start(): Promise<SwapChainHarness> {
    const h = new SwapChainHarness();
    const dataDir = path.join(tempDir('svc-swapchain-'), 'data');
    h.chain = await startDevchain({ dataDir });
    h.backend = await BackendProcess.start({ dataDir });
    h.user = await h.chain.provider.getSigner(h.chain.user.address);
    return h;
  }

  async stop(): Promise<void> {
    await this.backend?.stop();
    await this.chain?.stop();
  }

  /** Another backend on this devchain, its swap.yaml the devchain's with `bsc` overrides (rpc_url through a proxy, …). */
  async backendWith(bsc: Record<string, unknown>): Promise<BackendProcess> {
    const dataDir = path.join(tempDir('svc-swapchain-'), 'data');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const yaml = structuredClone(this.chain.swapYaml.object) as unknown as { chains: { bsc: Record<string, unknown> } };
    Object.assign(yaml.chains.bsc, bsc);
    writeFileSync(path.join(dataDir, 'swap.yaml'), stringify(yaml));
    return BackendProcess.start({ dataDir });
  }

  token(symbol: string): string {
    return symbol === 'BNB' ? NATIVE : this.chain.token(symbol).address;
  }

  async build(body: Record<string, unknown>) {
    return api(this.backend.swapUrl, 'POST', '/api/v1/route/build', {
      body: { chain: 'bsc', sender: this.chain.user.address, ...body },
    });
  }

  async balance(token: string, owner: string): Promise<bigint> {
    if (token === NATIVE) return this.chain.provider.getBalance(owner);
    return (await new Contract(token, ERC20_ABI, this.chain.provider).getFunction('balanceOf')(owner)) as bigint;
  }

  async send(signer: JsonRpcSigner, tx: { to: string; data?: string; value?: bigint; gasLimit?: bigint }): Promise<TransactionReceipt> {
    const sent = await signer.sendTransaction(tx);
    const receipt = await this.chain.mined(sent.hash);
    assert.equal(receipt.status, 1, 'transaction reverted');
    return receipt;
  }

  /**
   * Executes a built route as a wallet would: approve the returned spender (unless native),
   * then send executorData to aggregatorAddress with value. Returns what the recipient received.
   */
  async execute(
    route: any,
    opts: { recipient?: string; gasLimit?: bigint } = {},
  ): Promise<{ received: bigint; receipt: TransactionReceipt }> {
    const recipient = opts.recipient ?? this.chain.user.address;
    if (route.tokenIn !== NATIVE) {
      const erc20 = new Contract(route.tokenIn, ERC20_ABI, this.user);
      await this.chain.mined((await erc20.getFunction('approve').send(route.executorAddress, BigInt(route.amountIn))).hash);
    }
    const before = await this.balance(route.tokenOut, recipient);
    // A simulated figure is the minimum gas limit that succeeds: a wallet sends exactly that.
    // The model's figure is an estimate of gasUsed, so the wallet adds headroom.
    const simulated = route.routeInfo?.gasSource === 'simulation';
    const receipt = await this.send(this.user, {
      to: route.aggregatorAddress,
      data: route.executorData,
      value: BigInt(route.value),
      gasLimit: opts.gasLimit ?? (simulated ? BigInt(route.gas) : BigInt(route.gas) * 2n),
    });
    const after = await this.balance(route.tokenOut, recipient);
    // Native output to the sender: add back the gas the sender paid.
    const gasFee = route.tokenOut === NATIVE && recipient === this.chain.user.address ? receipt.gasUsed * receipt.gasPrice : 0n;
    return { received: after - before + gasFee, receipt };
  }

  /**
   * The gas promise of a response. Model: within 20 % of gasUsed. Simulation: the limit the
   * transaction needs (it ran with exactly that), so at least gasUsed; gas refunds (a slot set and
   * cleared again in one transaction: the router's transient wrapped balance, locks, a spent
   * allowance) are paid back only after execution, at most a fifth of it, so the needed limit can
   * sit up to ~28 % above gasUsed on refund-heavy routes (wraps, native input), plus the builder's
   * headroom for price-accumulator writes (backend/swap/route-builder.ts).
   */
  static checkGas(route: any, receipt: TransactionReceipt): number {
    const gas = Number(route.gas);
    const used = Number(receipt.gasUsed);
    const err = (gas - used) / used;
    if (route.routeInfo.gasSource === 'simulation') {
      assert.ok(gas >= used && err <= 0.35, `simulated gas ${gas} vs gasUsed ${used}`);
    } else {
      assert.ok(Math.abs(err) <= 0.2, `model gas ${gas} vs gasUsed ${used}`);
    }
    return err;
  }

  /** Sends the same calldata and returns the revert reason (the tx must fail). */
  async revertReason(route: any): Promise<string> {
    if (route.tokenIn !== NATIVE) {
      const erc20 = new Contract(route.tokenIn, ERC20_ABI, this.user);
      await this.chain.mined((await erc20.getFunction('approve').send(route.executorAddress, BigInt(route.amountIn))).hash);
    }
    try {
      await this.user.call({ to: route.aggregatorAddress, data: route.executorData, value: BigInt(route.value) });
    } catch (err) {
      return String((err as { reason?: string }).reason ?? (err as Error).message);
    }
    throw new Error('the call did not revert');
  }
}
