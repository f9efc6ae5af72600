/** Small statistics helpers shared by the benchmark scripts. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Ratio of two bigints as a float with 9 significant digits. */
export function ratio(a: bigint, b: bigint): number {
  if (b === 0n) return NaN;
  return Number((a * 1_000_000_000n) / b) / 1e9;
}
