import type { ChunkLocation } from '../../../backend/knowledge/knowledge-api.js';

/** Where a passage sits, short: "guide.md · Setup › Keys", "p. 3", "lines 10-24". */
export function locationLabel(loc: ChunkLocation, page: (n: number) => string): string {
  const where = loc.page
    ? page(loc.page)
    : loc.heading?.length
      ? loc.heading.join(' › ')
      : loc.line_start
        ? `${loc.line_start}–${loc.line_end ?? loc.line_start}`
        : '';
  return [loc.file, where].filter(Boolean).join(' · ');
}
