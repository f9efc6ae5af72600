import assert from 'node:assert/strict';
import path from 'node:path';
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
  async execute(route: any, opts: { recipient?: string } = {}): Promise<{ received: bigint; receipt: TransactionReceipt }> {
    const recipient = opts.recipient ?? this.chain.user.address;
    if (route.tokenIn !== NATIVE) {
      const erc20 = new Contract(route.tokenIn, ERC20_ABI, this.user);
      await this.chain.mined((await erc20.getFunction('approve').send(route.executorAddress, BigInt(route.amountIn))).hash);
    }
    const before = await this.balance(route.tokenOut, recipient);
    // The gas limit a wallet would derive from the response: eth_estimateGas runs against the
    // current block, and a swap mined a second later can cost more (price accumulators).
    const receipt = await this.send(this.user, {
      to: route.aggregatorAddress,
      data: route.executorData,
      value: BigInt(route.value),
      gasLimit: BigInt(route.gas) * 2n,
    });
    const after = await this.balance(route.tokenOut, recipient);
    // Native output to the sender: add back the gas the sender paid.
    const gasFee = route.tokenOut === NATIVE && recipient === this.chain.user.address ? receipt.gasUsed * receipt.gasPrice : 0n;
    return { received: after - before + gasFee, receipt };
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
