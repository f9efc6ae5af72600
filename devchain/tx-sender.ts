import { getCreateAddress, Interface, type InterfaceAbi, type JsonRpcProvider, toQuantity } from 'ethers';
import type { CompiledContract } from './compile-contracts.js';

interface Pending {
  hash: Promise<string>;
  label: string;
}

/**
 * Sends transactions from one of anvil's unlocked accounts without waiting for each:
 * nonces are assigned here, gas limits are fixed (no estimation round trip) and contract
 * addresses are derived from the nonce, so a whole deployment streams to automining anvil.
 * `confirm()` then checks every receipt in one batch and names the first failure.
 */
export class TxSender {
  private nonce = 0;
  private pending: Pending[] = [];
  /** Sends go out one after another: anvil must see nonces in order (see receipts()). */
  private lastSend: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly provider: JsonRpcProvider,
    readonly from: string,
  ) {}

  static async create(provider: JsonRpcProvider, from: string): Promise<TxSender> {
    const sender = new TxSender(provider, from);
    sender.nonce = await provider.getTransactionCount(from, 'pending');
    return sender;
  }

  send(label: string, tx: { to?: string; data?: string; value?: bigint; gas?: bigint }): void {
    const request: Record<string, string> = {
      from: this.from,
      nonce: toQuantity(this.nonce++),
      gas: toQuantity(tx.gas ?? 3_000_000n),
      // Fixed and above anvil's base fee, so no eth_gasPrice round trip is needed.
      gasPrice: toQuantity(10_000_000_000n),
      data: tx.data ?? '0x',
      value: toQuantity(tx.value ?? 0n),
    };
    if (tx.to) request.to = tx.to;
    const hash = this.lastSend.then(() => this.provider.send('eth_sendTransaction', [request]) as Promise<string>);
    this.lastSend = hash.catch(() => undefined);
    this.pending.push({ label, hash });
  }

  call(label: string, to: string, abi: InterfaceAbi, fn: string, args: unknown[], gas?: bigint): void {
    this.send(label, { to, data: new Interface(abi).encodeFunctionData(fn, args), gas });
  }

  deploy(label: string, contract: CompiledContract, args: unknown[] = [], gas = 8_000_000n): string {
    const address = getCreateAddress({ from: this.from, nonce: this.nonce });
    const ctorArgs = new Interface(contract.abi as InterfaceAbi).encodeDeploy(args);
    this.send(label, { data: contract.bytecode + ctorArgs.slice(2), gas });
    return address;
  }

  async confirm(): Promise<number> {
    const batch = this.pending;
    this.pending = [];
    const hashes = await Promise.all(batch.map((p) => p.hash));
    const receipts = await this.receipts(hashes);
    receipts.forEach((r, i) => {
      if (r.status !== '0x1') {
        throw new Error(`devchain deployment step "${batch[i]!.label}" reverted (tx ${hashes[i]}, gas used ${BigInt(r.gasUsed)})`);
      }
    });
    return batch.length;
  }

  /**
   * anvil answers eth_sendTransaction before its automine task has sealed the block. Batched
   * sends can also reach it out of nonce order; automine seals only on arrival, so a transaction
   * queued behind a nonce gap waits for the next one. A manual evm_mine flushes such stragglers.
   */
  private async receipts(hashes: string[]): Promise<{ status: string; gasUsed: string }[]> {
    const found = new Map<string, { status: string; gasUsed: string }>();
    const deadline = Date.now() + 30_000;
    let nextFlush = Date.now() + 250;
    for (;;) {
      const missing = hashes.filter((h) => !found.has(h));
      if (missing.length === 0) return hashes.map((h) => found.get(h)!);
      if (Date.now() > deadline) throw new Error(`devchain: ${missing.length} transactions were never mined`);
      const got = await Promise.all(
        missing.map((h) => this.provider.send('eth_getTransactionReceipt', [h]) as Promise<{ status: string; gasUsed: string } | null>),
      );
      got.forEach((r, i) => {
        if (r) found.set(missing[i]!, r);
      });
      if (got.some((r) => !r)) {
        if (Date.now() > nextFlush) {
          await this.provider.send('evm_mine', []);
          nextFlush = Date.now() + 250;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}
