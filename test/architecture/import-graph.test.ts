// The backend's architecture as data: its import graph (type-only imports count) has no cycle
// between files or between areas, every import points down the layer list the lint also reads
// (scripts/backend-layers.mjs), and the contract files (`*-api.ts`) the renderer takes types from
// reach nothing that drags a server or chain library into the UI's type fence.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { areaGraph, cycles, layering, readGraph, unresolved, type Layer } from './graph-kit.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BACKEND = path.join(ROOT, 'backend');

const { BACKEND_LAYERS } = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'backend-layers.mjs')).href)) as {
  BACKEND_LAYERS: Layer[];
};

const graph = readGraph(BACKEND);
const areas = areaGraph(graph);

describe('backend import graph', () => {
  it('prints the layer order, bottom first', () => {
    const lines = BACKEND_LAYERS.map((l, i) => `  ${i + 1}. ${l.name}: ${l.areas.join(', ')}`);
    console.log(`backend layers (an area imports only its own layer or lower ones):\n${lines.join('\n')}`);
    assert.ok(graph.files.size > 50, `read ${graph.files.size} backend files`);
  });

  it('has no cycle between files, type-only imports included', () => {
    assert.deepEqual(unresolved(graph), [], 'every relative import resolves to a backend file');
    assert.deepEqual(cycles(graph.files), []);
  });

  it('has no cycle between areas', () => {
    assert.deepEqual(cycles(areas), []);
  });

  it('places every area in a layer, and every import points to the same layer or a lower one', () => {
    const { unplaced, upward } = layering(areas, BACKEND_LAYERS);
    assert.deepEqual(unplaced, [], 'new areas go into scripts/backend-layers.mjs');
    assert.deepEqual(upward, []);
  });

  it('keeps electron and app/ out of the backend', () => {
    const electron = [...graph.packages].flatMap(([f, specs]) => [...specs].filter((s) => s === 'electron').map(() => f));
    assert.deepEqual(electron, []);
    const outside = [...graph.files].flatMap(([f, ts]) => [...ts].filter((t) => t.startsWith('../')).map((t) => `${f} -> ${t}`));
    assert.deepEqual(outside, []);
  });

  it('keeps contract files free of server, chain and Node modules, through everything they import', () => {
    const contracts = [...graph.files.keys()].filter((f) => f.endsWith('-api.ts'));
    assert.ok(contracts.length >= 10, `found ${contracts.length} contract files`);
    const dragged: string[] = [];
    for (const contract of contracts) {
      const seen = new Set<string>();
      const queue = [contract];
      while (queue.length > 0) {
        const file = queue.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const spec of graph.packages.get(file) ?? []) {
          if (spec !== 'zod') dragged.push(`${contract} reaches ${spec} through ${file}`);
        }
        queue.push(...(graph.files.get(file) ?? []));
      }
    }
    assert.deepEqual(dragged, []);
  });
});
