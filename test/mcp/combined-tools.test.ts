// combineToolSources: how service.ts puts the skills and the tool servers behind the one ToolSource the
// turn loop sees. Names stay unique in a request, and a call goes back to the source that listed it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineToolSources } from '../../backend/tools/combined-tools.js';
import type { ToolSource, ToolSpec } from '../../backend/tools/tool-source.js';

const never = new AbortController().signal;

function source(label: string, names: string[], prompt: string, log: string[]): ToolSource {
  const specs: ToolSpec[] = names.map((name) => ({
    name,
    description: `${label} ${name}`,
    inputSchema: { type: 'object' },
    server: label,
    tool: name,
    needsApproval: false,
  }));
  return {
    list: async () => specs,
    systemPrompt: async () => prompt,
    call: async (_ws, spec) => {
      log.push(`${label} call ${spec.name}`);
      return { ok: true, content: `${label}:${spec.name}` };
    },
    remember: async (_ws, spec) => {
      log.push(`${label} remember ${spec.name}`);
    },
  };
}

describe('combineToolSources', () => {
  it('lists in source order, renames a clash, and routes calls to the source that listed the spec', async () => {
    const log: string[] = [];
    const tools = combineToolSources(
      source('skills', ['activate_skill'], 'catalog', log),
      source('fs', ['read', 'activate_skill'], '', log),
    );
    const specs = await tools.list('ws', never);
    assert.deepEqual(
      specs.map((s) => s.name),
      ['activate_skill', 'read', 'activate_skill_2'],
    );
    assert.deepEqual(await tools.call('ws', specs[2], {}, never), { ok: true, content: 'fs:activate_skill' });
    assert.deepEqual(await tools.call('ws', specs[0], {}, never), { ok: true, content: 'skills:activate_skill' });
    await tools.remember('ws', specs[1]);
    assert.deepEqual(log, ['fs call activate_skill', 'skills call activate_skill', 'fs remember read']);
  });

  it('joins the system-prompt parts that are not empty', async () => {
    const tools = combineToolSources(source('a', [], 'first', []), source('b', [], '', []), source('c', [], 'third', []));
    assert.equal(await tools.systemPrompt('ws'), 'first\n\nthird');
  });

  it('answers a spec it never listed with a tool error instead of guessing a source', async () => {
    const tools = combineToolSources(source('fs', ['read'], '', []));
    const stranger: ToolSpec = { name: 'read', description: '', inputSchema: {}, server: 'fs', tool: 'read', needsApproval: false };
    const outcome = await tools.call('ws', stranger, {}, never);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.errorCode, 'tool_error');
  });
});
