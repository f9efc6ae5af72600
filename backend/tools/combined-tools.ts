import { claimName, type ToolCallOutcome, type ToolSource, type ToolSpec } from './tool-source.js';

/**
 * One ToolSource over several (service.ts: skills, then tool servers). Lists concatenate in order,
 * a later source's name that clashes with an earlier one gets a suffix, system-prompt parts join
 * with a blank line, and a call or "always allow" goes back to the source that listed the spec.
 */
export function combineToolSources(...sources: ToolSource[]): ToolSource {
  /** Spec as handed out → the source that listed it and the spec as that source wrote it. */
  const owners = new WeakMap<ToolSpec, { source: ToolSource; spec: ToolSpec }>();
  return {
    async list(workspaceId, signal) {
      const taken = new Set<string>();
      const specs: ToolSpec[] = [];
      for (const source of sources) {
        for (const spec of await source.list(workspaceId, signal)) {
          const name = claimName(spec.name, taken);
          const offered = name === spec.name ? spec : { ...spec, name };
          owners.set(offered, { source, spec });
          specs.push(offered);
        }
      }
      return specs;
    },
    async systemPrompt(workspaceId) {
      const parts: string[] = [];
      for (const source of sources) parts.push(await source.systemPrompt(workspaceId));
      return parts.filter(Boolean).join('\n\n');
    },
    async call(workspaceId, spec, args, signal): Promise<ToolCallOutcome> {
      const owner = owners.get(spec);
      if (!owner) return { ok: false, content: `There is no tool named ${spec.name}.`, errorCode: 'tool_error' };
      return owner.source.call(workspaceId, owner.spec, args, signal);
    },
    async remember(workspaceId, spec) {
      const owner = owners.get(spec);
      if (owner) await owner.source.remember(workspaceId, owner.spec);
    },
    toolsChanged() {
      return sources.some((source) => source.toolsChanged?.() === true);
    },
  };
}
