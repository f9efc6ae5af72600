/** Row offsets for a list of variable-height rows: measured heights where known, an estimate elsewhere. */
export interface Layout {
  /** offsets[i] = top of row i; offsets[n] = total height. */
  offsets: number[];
  index: Map<string, number>;
}

export function layoutRows(keys: readonly string[], heights: ReadonlyMap<string, number>): Layout {
  let measured = 0;
  let sum = 0;
  for (const k of keys) {
    const h = heights.get(k);
    if (h !== undefined) {
      measured += 1;
      sum += h;
    }
  }
  const estimate = measured ? sum / measured : 120;
  const offsets = new Array<number>(keys.length + 1);
  const index = new Map<string, number>();
  let y = 0;
  keys.forEach((k, i) => {
    offsets[i] = y;
    index.set(k, i);
    y += heights.get(k) ?? estimate;
  });
  offsets[keys.length] = y;
  return { offsets, index };
}

/** The first row whose bottom is below `y` (binary search over the offsets). */
export function rowAt(offsets: readonly number[], y: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows to render for a viewport, with overscan above and below. */
export function visibleRange(offsets: readonly number[], top: number, height: number, overscan: number): [number, number] {
  const n = offsets.length - 1;
  if (n <= 0) return [0, 0];
  const start = rowAt(offsets, Math.max(0, top - overscan));
  const end = Math.min(n, rowAt(offsets, top + height + overscan) + 1);
  return [start, end];
}
