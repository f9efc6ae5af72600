// The import graph of one source tree (backend/, renderer/src/, app/) and the checks the
// architecture tests run on it: cycles between files or areas, and imports that point up a layer list.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Layer = { name: string; areas: string[] };

/** `import … from`, `export … from`, side-effect imports and `import()`, with `type` or not. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const CODE = /\.tsx?$/;
/** Styles and other assets the bundler imports: not part of the code graph. */
const ASSET = /\.(css|svg|png|jpe?g|gif|webp|woff2?|json|html|txt|md)(\?.*)?$/;

export interface Graph {
  /**
   * File (relative to the tree's root, `/` separators) → files it imports. A target that leaves the
   * tree starts with `../`; one that resolves to no file of the tree is kept as written (with `.ts`).
   */
  files: Map<string, Set<string>>;
  /** File → bare specifiers (packages, node: modules) it imports. */
  packages: Map<string, Set<string>>;
}

/** The graph of every `.ts`/`.tsx` file under `root`; imports of styles and other assets are left out. */
export function readGraph(root: string): Graph {
  const files = new Map<string, Set<string>>();
  const packages = new Map<string, Set<string>>();
  const names = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => CODE.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.split(path.sep).join('/'));
  const known = new Set(names);
  for (const file of names) {
    const source = readFileSync(path.join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    const local = new Set<string>();
    const bare = new Set<string>();
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) {
        bare.add(spec);
        continue;
      }
      if (ASSET.test(spec)) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const stem = target.replace(/\.js$/, '');
      const resolved = [stem, `${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`, `${stem}/index.tsx`].find((f) => known.has(f));
      local.add(resolved ?? (CODE.test(stem) ? stem : `${stem}.ts`));
    }
    files.set(file, local);
    packages.set(file, bare);
  }
  return { files, packages };
}

/** The area of a file: its top folder under the root, or the file itself when it sits directly there. */
export const areaOf = (file: string) => file.split('/')[0];

/** Strongly connected components with more than one node (or a self-loop): the cycles. */
export function cycles(adjacency: Map<string, Set<string>>): string[][] {
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

/** Area → areas it imports (targets outside the tree left out). */
export function areaGraph(graph: Graph): Map<string, Set<string>> {
  const areas = new Map<string, Set<string>>();
  for (const [file, targets] of graph.files) {
    const from = areaOf(file);
    if (!areas.has(from)) areas.set(from, new Set());
    for (const t of targets) if (!t.startsWith('../') && areaOf(t) !== from) areas.get(from)!.add(areaOf(t));
  }
  return areas;
}

/** Imports inside the tree that resolve to no file of it (a typo, or a file moved away). */
export function unresolved(graph: Graph): string[] {
  return [...graph.files].flatMap(([f, ts]) =>
    [...ts].filter((t) => !t.startsWith('../') && !graph.files.has(t)).map((t) => `${f} -> ${t}`),
  );
}

/** Areas no layer names, and `from -> to` area imports that point to a higher layer. */
export function layering(areas: Map<string, Set<string>>, layers: Layer[]): { unplaced: string[]; upward: string[] } {
  const layerOf = new Map(layers.flatMap((layer, i) => layer.areas.map((a) => [a, i] as const)));
  const unplaced = [...areas.keys()].filter((a) => !layerOf.has(a));
  const upward = [...areas].flatMap(([from, tos]) =>
    [...tos].filter((to) => (layerOf.get(to) ?? -1) > (layerOf.get(from) ?? Infinity)).map((to) => `${from} -> ${to}`),
  );
  return { unplaced, upward };
}
