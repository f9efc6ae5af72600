/**
 * Fee-on-transfer tokens found by simulation (DESIGN 17): one eth_call to Multicall3 at the
 * route's block, with the existing state overrides (storage-slots.ts) giving Multicall3 a balance
 * and an allowance on one of the token's pools, makes two transfers and reads balances around
 * them: Multicall3 → pool (a sell, where many taxed tokens take their fee) and pool → a fresh
 * address (a buy). What arrived short of what was sent is the fee. The router quotes pools
 * exactly and checks minReturn against what the receiver got, so a route through such a token
 * would promise an amount it cannot deliver: the caller refuses it.
 */
import { hexWord } from './abi-words.js';
import { AbiCoder, Interface } from 'ethers';
import { ApiError } from '../../http/errors.js';
import { checksum } from '../checksum.js';
import { RpcError, type JsonRpcClient } from './json-rpc.js';
import { MULTICALL3 } from './multicall.js';
import { allowanceKey, balanceKey, tokenSlots } from './storage-slots.js';
import type { BlockRef } from './pool-types.js';

/** A measurement holds this long; a token's owner may change its fee. */
const TTL_MS = 10 * 60_000;
/** The amount moved in each simulated transfer (base units); the fee is a fraction of it. */
const PROBE_AMOUNT = 10n ** 15n;
/** Receives the simulated buy: an address no token exempts or blocks. */
const BUYER = '0x00000000000000000000000000000000000b0b0b';

const ERC20 = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
  'function transferFrom(address,address,uint256) returns (bool)',
]);
const coder = AbiCoder.defaultAbiCoder();

export interface TransferFee {
  token: string;
  /** Basis points (rounded up) lost on a transfer into the pool and out of it. */
  sellBps: number;
  buyBps: number;
}

/** Per node: measured fees (null: the token cannot be measured, e.g. no plain balance slot). */
export class TransferFees {
  private readonly measured = new Map<string, { fee: TransferFee | null; at: number }>();

  constructor(private readonly rpc: JsonRpcClient) {}

  /**
   * The fees of `tokens` (each with one of its pools), measured at `block` unless a recent
   * measurement is known. Tokens that cannot be measured are left out.
   */
  async check(tokens: { token: string; pool: string }[], block: BlockRef, signal: AbortSignal): Promise<TransferFee[]> {
    const now = Date.now();
    const todo = tokens.filter((t) => {
      const hit = this.measured.get(t.token);
      return !hit || now - hit.at > TTL_MS;
    });
    if (todo.length > 0) await this.measure(todo, block, signal);
    return tokens.map((t) => this.measured.get(t.token)?.fee).filter((f): f is TransferFee => !!f);
  }

  private async measure(tokens: { token: string; pool: string }[], block: BlockRef, signal: AbortSignal): Promise<void> {
    const slots = await Promise.all(tokens.map((t) => tokenSlots(this.rpc, t.token, signal)));
    const plain = tokens.map((t, i) => ({ ...t, slots: slots[i] })).filter((t) => t.slots !== undefined);
    // Balances kept other than in a plain mapping (rebasing, reflection): not measurable this way.
    tokens.forEach((t, i) => slots[i] === undefined && this.measured.set(t.token, { fee: null, at: Date.now() }));
    if (plain.length === 0) return;
    const overrides: Record<string, { stateDiff: Record<string, string> }> = {};
    const sub: [string, boolean, string][] = [];
    for (const { token, pool, slots: s } of plain) {
      overrides[token] = {
        stateDiff: {
          [balanceKey(s!.balance, MULTICALL3)]: hexWord(PROBE_AMOUNT),
          [balanceKey(s!.balance, pool)]: hexWord(PROBE_AMOUNT * 2n),
          [allowanceKey(s!.allowance, pool, MULTICALL3)]: hexWord(PROBE_AMOUNT),
        },
      };
      const balance = (who: string) => [token, true, ERC20.encodeFunctionData('balanceOf', [who])] as [string, boolean, string];
      sub.push(
        balance(pool),
        [token, true, ERC20.encodeFunctionData('transfer', [pool, PROBE_AMOUNT])],
        balance(pool),
        balance(BUYER),
        [token, true, ERC20.encodeFunctionData('transferFrom', [pool, BUYER, PROBE_AMOUNT])],
        balance(BUYER),
      );
    }
    const data = `0x82ad56cb${coder.encode(['(address,bool,bytes)[]'], [sub]).slice(2)}`;
    let raw: string;
    try {
      raw = await this.rpc.call<string>('eth_call', [{ to: MULTICALL3, data }, block.tag, overrides], signal);
    } catch (err) {
      if (signal.aborted || !(err instanceof RpcError)) throw err;
      // A node without state overrides cannot measure: the tokens are taken as they are.
      for (const t of plain) this.measured.set(t.token, { fee: null, at: Date.now() });
      return;
    }
    const [results] = coder.decode(['(bool,bytes)[]'], raw) as unknown as [[boolean, string][]];
    const value = (i: number) => (results[i][0] && results[i][1].length >= 66 ? BigInt(results[i][1].slice(0, 66)) : undefined);
    plain.forEach((t, k) => {
      const i = k * 6;
      const ok = results[i + 1][0] && results[i + 4][0];
      const [p0, p1, b0, b1] = [value(i), value(i + 2), value(i + 3), value(i + 5)];
      if (!ok || p0 === undefined || p1 === undefined || b0 === undefined || b1 === undefined) {
        // A transfer the token refuses (limits, blocklists) tells nothing about a fee.
        this.measured.set(t.token, { fee: null, at: Date.now() });
        return;
      }
      const bps = (arrived: bigint) => Number(((PROBE_AMOUNT - arrived) * 10_000n + PROBE_AMOUNT - 1n) / PROBE_AMOUNT);
      const fee = { token: t.token, sellBps: bps(p1 - p0), buyBps: bps(b1 - b0) };
      this.measured.set(t.token, { fee, at: Date.now() });
    });
  }
}

const percent = (bps: number) => `${(bps / 100).toFixed(2)} %`;

/**
 * 400 unsupported_token for a token that takes a fee on transfer: the pools would be quoted for
 * more than reaches them (or than reaches the receiver) and minAmountOut could not be met.
 */
export function refuseTransferFees(fees: TransferFee[], tokenIn: string): void {
  const taxed = fees.find((f) => f.sellBps > 0 || f.buyBps > 0);
  if (!taxed) return;
  const field = taxed.token === tokenIn ? 'tokenIn' : 'tokenOut';
  throw new ApiError(
    'unsupported_token',
    `${checksum(taxed.token)} takes a fee on transfer (simulated: ${percent(taxed.sellBps)} of a transfer into its pool, ` +
      `${percent(taxed.buyBps)} of a transfer out of it); routes through fee-on-transfer tokens are not supported, ` +
      'as the route could not deliver its minAmountOut',
    { field },
  );
}
