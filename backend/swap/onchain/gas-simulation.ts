import { hexWord } from './abi-words.js';
import { isNative } from '../route-request.js';
import { JsonRpcClient, RpcError } from './json-rpc.js';
import { allowanceKey, balanceKey, tokenSlots } from './storage-slots.js';

/** The exact transaction a wallet will send for a built route. */
export interface SimulatedTx {
  rpcUrl: string;
  sender: string;
  /** The router (aggregatorAddress). */
  to: string;
  data: string;
  value: bigint;
  /** The request's input token (may be the native placeholder) and amount. */
  tokenIn: string;
  amountIn: bigint;
  /** The approval contract the router pulls through (executorAddress). */
  spender: string;
}

/** Native coin given to the sender in the simulation on top of `value`, so gas is never short. */
const SENDER_NATIVE = 10n ** 24n;
const hex = (v: bigint) => `0x${v.toString(16)}`;

/** Errors that mean "this node does not take a state-override argument", not "the call reverted". */
const UNSUPPORTED = /invalid (params|argument)|unknown field|too many (arguments|params)|method not found|not supported|unsupported/i;

/**
 * Gas by simulation (issue 17, point 4): eth_estimateGas of the exact calldata from the sender,
 * with state overrides giving the sender the input balance and allowance (and native coin), so the
 * estimate holds before the wallet has approved or funded anything. The token's balance and
 * allowance slots are probed once per token and node and cached. Returns undefined when the node
 * cannot take overrides (remembered per node), the slots are not plain mappings, or the call
 * fails: the caller then keeps the model's figure.
 */
export class GasSimulator {
  private readonly clients = new Map<string, JsonRpcClient>();
  private readonly noOverrides = new Set<string>();

  private client(url: string): JsonRpcClient {
    let c = this.clients.get(url);
    if (!c) {
      c = new JsonRpcClient(url, 5_000);
      this.clients.set(url, c);
    }
    return c;
  }

  /** The node's gas price, or undefined when it cannot be asked. */
  async gasPrice(url: string, signal?: AbortSignal): Promise<bigint | undefined> {
    try {
      return BigInt(await this.client(url).call<string>('eth_gasPrice', [], signal));
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
  }

  /** True once a node has refused state overrides; it is not asked again. */
  refusesOverrides(url: string): boolean {
    return this.noOverrides.has(url);
  }

  async estimate(tx: SimulatedTx, signal?: AbortSignal): Promise<bigint | undefined> {
    if (this.noOverrides.has(tx.rpcUrl)) return undefined;
    const rpc = this.client(tx.rpcUrl);
    try {
      const overrides: Record<string, { balance?: string; stateDiff?: Record<string, string> }> = {
        [tx.sender]: { balance: hex(tx.value + SENDER_NATIVE) },
      };
      if (!isNative(tx.tokenIn)) {
        const slots = await tokenSlots(rpc, tx.tokenIn, signal);
        if (!slots) return undefined;
        // Twice the input: a wallet rarely spends its whole balance (clearing a slot is refunded).
        overrides[tx.tokenIn] = {
          stateDiff: {
            [balanceKey(slots.balance, tx.sender)]: hexWord(tx.amountIn * 2n),
            [allowanceKey(slots.allowance, tx.sender, tx.spender)]: hexWord(tx.amountIn),
          },
        };
      }
      const gas = await rpc.call<string>(
        'eth_estimateGas',
        [{ from: tx.sender, to: tx.to, data: tx.data, value: hex(tx.value) }, 'latest', overrides],
        signal,
      );
      return BigInt(gas);
    } catch (err) {
      if (err instanceof RpcError && UNSUPPORTED.test(err.message)) this.noOverrides.add(tx.rpcUrl);
      if (signal?.aborted) throw err;
      return undefined;
    }
  }
}
