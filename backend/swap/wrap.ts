import { ApiError } from '../http/errors.js';
import { address, callData, tuple, uint } from './abi-encoder.js';
import { checksum } from './checksum.js';
import { minAmountOut } from './route-model.js';
import { isNative, NATIVE_TOKEN, type RouteRequest } from './route-request.js';
import { REVERSE_BIT, SWAP_WRAP_SELECTOR, SWAP_WRAP_TO_SELECTOR } from './router-abi.js';

/** swapWrap carries the amount in the low 128 bits of `rawdata`. */
const MAX_WRAP_AMOUNT = (1n << 128n) - 1n;

export type WrapDirection = 'wrap' | 'unwrap';

/** Native → wrapped is a wrap, wrapped → native an unwrap; anything else is a route. */
export function wrapDirection(tokenIn: string, tokenOut: string, wrapped: string): WrapDirection | undefined {
  const w = wrapped.toLowerCase();
  if (isNative(tokenIn) && tokenOut.toLowerCase() === w) return 'wrap';
  if (tokenIn.toLowerCase() === w && isNative(tokenOut)) return 'unwrap';
  return undefined;
}

/**
 * The router's wrap entry points (facts/dexrouter.md): `swapWrap(orderId, rawdata)` pays
 * msg.sender, with bit 255 = reversed (wrapped → native) and the amount in the low 128 bits;
 * `swapWrapToWithBaseRequest(orderId, receiver, baseRequest)` pays another receiver.
 */
export function encodeWrap(
  direction: WrapDirection,
  amount: bigint,
  opts: { sender: string; recipient: string; wrapped: string; minReturn: bigint; deadline: number },
): string {
  if (amount <= 0n || amount > MAX_WRAP_AMOUNT) throw new RangeError(`wrap amount ${amount} does not fit in 128 bits`);
  if (opts.recipient.toLowerCase() === opts.sender.toLowerCase()) {
    const rawdata = (direction === 'unwrap' ? REVERSE_BIT : 0n) | amount;
    return callData(SWAP_WRAP_SELECTOR, [uint(0n), uint(rawdata)]);
  }
  const [from, to] = direction === 'wrap' ? [NATIVE_TOKEN, opts.wrapped] : [opts.wrapped, NATIVE_TOKEN];
  const baseRequest = tuple([uint(BigInt(from)), address(to), uint(amount), uint(opts.minReturn), uint(opts.deadline)]);
  return callData(SWAP_WRAP_TO_SELECTOR, [uint(0n), address(opts.recipient), baseRequest]);
}

/** What a wrap answers besides gas: amountOut == amountIn, one `{dex: "wrap"}` hop. */
export function wrapQuote(req: RouteRequest, direction: WrapDirection, wrapped: string) {
  if (req.amountIn > MAX_WRAP_AMOUNT) {
    throw new ApiError('validation_failed', 'amountIn must be below 2^128 for a wrap or unwrap (the router packs it in 128 bits)', {
      field: 'amountIn',
    });
  }
  const minOut = minAmountOut(req.amountIn, req.slippageTolerance);
  const executorData = encodeWrap(direction, req.amountIn, {
    sender: req.sender,
    recipient: req.recipient,
    wrapped,
    minReturn: minOut,
    deadline: req.deadline,
  });
  const hop = {
    dex: 'wrap' as const,
    version: 'wrap' as const,
    pool: checksum(wrapped),
    tokenIn: req.tokenIn,
    tokenOut: req.tokenOut,
    amountIn: req.amountIn.toString(),
    amountOut: req.amountIn.toString(),
    fee: 0,
  };
  return {
    minOut,
    executorData,
    value: direction === 'wrap' ? req.amountIn : 0n,
    paths: [{ amountIn: hop.amountIn, amountOut: hop.amountOut, hops: [hop] }],
  };
}
