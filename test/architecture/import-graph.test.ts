// The backend's architecture as data: its import graph (type-only imports count) has no cycle
// between files or between areas, every import points down the layer list the lint also reads
// (scripts/backend-layers.mjs), and the contract files (`*-api.ts`) the renderer takes types from
// reach nothing that drags a server or chain library into the UI's type fence.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BACKEND = path.join(ROOT, 'backend');

type Layer = { name: string; areas: string[] };
const { BACKEND_LAYERS } = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'backend-layers.mjs')).href)) as {
  BACKEND_LAYERS: Layer[];
};

/** `import … from`, `export … from`, side-effect imports and `import()`, with `type` or not. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Graph {
  /** File (relative to backend/, `/` separators) → files it imports. */
  files: Map<string, Set<string>>;
  /** File → bare specifiers (packages, node: modules) it imports. */
  packages: Map<string, Set<string>>;
}

function readGraph(): Graph {
  const files = new Map<string, Set<string>>();
  const packages = new Map<string, Set<string>>();
  const names = readdirSync(BACKEND, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const name of names) {
    const file = name.split(path.sep).join('/');
    const source = readFileSync(path.join(BACKEND, name), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    const local = new Set<string>();
    const bare = new Set<string>();
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) {
        bare.add(spec);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
      local.add(target.endsWith('.ts') ? target : `${target}.ts`);
    }
    files.set(file, local);
    packages.set(file, bare);
  }
  return { files, packages };
}

/** The area of a file: its top folder under backend/, or the file itself when it sits directly there. */
const areaOf = (file: string) => file.split('/')[0];

/** Strongly connected components with more than one node (or a self-loop): the cycles. */
function cycles(adjacency: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of adjacency.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || adjacency.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of adjacency.keys()) if (!index.has(v)) visit(v);
  return found;
}

function areaGraph(graph: Graph): Map<string, Set<string>> {
  const areas = new Map<string, Set<string>>();
  for (const [file, targets] of graph.files) {
    const from = areaOf(file);
    if (!areas.has(from)) areas.set(from, new Set());
    for (const t of targets) if (areaOf(t) !== from) areas.get(from)!.add(areaOf(t));
  }
  return areas;
}

const graph = readGraph();
const areas = areaGraph(graph);
const layerOf = new Map(BACKEND_LAYERS.flatMap((layer, i) => layer.areas.map((a) => [a, i] as const)));

describe('backend import graph', () => {
  it('prints the layer order, bottom first', () => {
    const lines = BACKEND_LAYERS.map((l, i) => `  ${i + 1}. ${l.name}: ${l.areas.join(', ')}`);
    console.log(`backend layers (an area imports only its own layer or lower ones):\n${lines.join('\n')}`);
    assert.ok(graph.files.size > 50, `read ${graph.files.size} backend files`);
  });

  it('has no cycle between files, type-only imports included', () => {
    const missing = [...graph.files].flatMap(([f, ts]) =>
      [...ts].filter((t) => !t.startsWith('../') && !graph.files.has(t)).map((t) => `${f} -> ${t}`),
    );
    assert.deepEqual(missing, [], 'every relative import resolves to a backend file');
    assert.deepEqual(cycles(graph.files), []);
  });

  it('has no cycle between areas', () => {
    assert.deepEqual(cycles(areas), []);
  });

  it('places every area in a layer, and every import points to the same layer or a lower one', () => {
    assert.deepEqual(
      [...areas.keys()].filter((a) => !layerOf.has(a)),
      [],
      'new areas go into scripts/backend-layers.mjs',
    );
    const upward = [...areas].flatMap(([from, tos]) =>
      [...tos].filter((to) => layerOf.get(to)! > layerOf.get(from)!).map((to) => `${from} -> ${to}`),
    );
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
