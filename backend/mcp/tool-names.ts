/** Longest tool name the three protocols all accept. */
export const TOOL_NAME_MAX = 64;

const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Model-facing names `<server>__<tool>`: characters outside `[A-Za-z0-9_-]` become `_`, at most 64,
 * unique within one list (a clash or a cut gets a `_2`, `_3`… suffix). `taken` holds names already used.
 */
export function modelToolName(server: string, tool: string, taken: Set<string>): string {
  const base = `${clean(server)}__${clean(tool)}`.slice(0, TOOL_NAME_MAX);
  let name = base;
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = base.slice(0, TOOL_NAME_MAX - suffix.length) + suffix;
  }
  taken.add(name);
  return name;
}
