import { claimName, TOOL_NAME_MAX } from '../tools/tool-source.js';

const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Model-facing names `<server>__<tool>`: characters outside `[A-Za-z0-9_-]` become `_`, at most 64,
 * unique within one list (a clash or a cut gets a `_2`, `_3`… suffix). `taken` holds names already used.
 */
export function modelToolName(server: string, tool: string, taken: Set<string>): string {
  return claimName(`${clean(server)}__${clean(tool)}`.slice(0, TOOL_NAME_MAX), taken);
}
