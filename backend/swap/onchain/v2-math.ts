/** Constant-product output with the source's fee in basis points (Uniswap V2 formula). */
export function quoteV2ExactIn(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const inWithFee = amountIn * BigInt(10_000 - feeBps);
  return (inWithFee * reserveOut) / (reserveIn * 10_000n + inWithFee);
}
