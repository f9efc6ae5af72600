// The import graph of one source tree (backend/, renderer/src/, app/) and the checks run on it:
// cycles between files or areas, and imports that point up a layer list. The architecture tests
// (test/architecture/, through graph-kit.ts) and the lint rule `architecture/no-cycle` below read it,
// so a cycle fails `npm run check` as well as the test, even one inside a layer the import rules allow.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** `import … from`, `export … from`, side-effect imports and `import()`, with `type` or not. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const CODE = /\.tsx?$/;
/** Styles and other assets the bundler imports: not part of the code graph. */
const ASSET = /\.(css|svg|png|jpe?g|gif|webp|woff2?|json|html|txt|md)(\?.*)?$/;

/**
 * @typedef {{ files: Map<string, Set<string>>, packages: Map<string, Set<string>> }} Graph
 * `files`: file (relative to the tree's root, `/` separators) → files it imports; a target that
 * leaves the tree starts with `../`, one that resolves to no file of the tree is kept as written.
 * `packages`: file → bare specifiers (packages, node: modules) it imports.
 */

/** The graph of every `.ts`/`.tsx` file under `root`; imports of styles and other assets are left out. */
export function readGraph(root) {
  const files = new Map();
  const packages = new Map();
  const names = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => CODE.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.split(path.sep).join('/'));
  const known = new Set(names);
  for (const file of names) {
    const source = readFileSync(path.join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    const local = new Set();
    const bare = new Set();
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
export const areaOf = (file) => file.split('/')[0];

/** Strongly connected components with more than one node (or a self-loop): the cycles, each sorted. */
export function cycles(adjacency) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of adjacency.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || adjacency.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of adjacency.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Area → areas it imports (targets outside the tree left out). */
export function areaGraph(graph) {
  const areas = new Map();
  for (const [file, targets] of graph.files) {
    const from = areaOf(file);
    if (!areas.has(from)) areas.set(from, new Set());
    for (const t of targets) if (!t.startsWith('../') && areaOf(t) !== from) areas.get(from).add(areaOf(t));
  }
  return areas;
}

/** Imports inside the tree that resolve to no file of it (a typo, or a file moved away). */
export function unresolved(graph) {
  return [...graph.files].flatMap(([f, ts]) =>
    [...ts].filter((t) => !t.startsWith('../') && !graph.files.has(t)).map((t) => `${f} -> ${t}`),
  );
}

/** Areas no layer names, and `from -> to` area imports that point to a higher layer. */
export function layering(areas, layers) {
  const layerOf = new Map(layers.flatMap((layer, i) => layer.areas.map((a) => [a, i])));
  const unplaced = [...areas.keys()].filter((a) => !layerOf.has(a));
  const upward = [...areas].flatMap(([from, tos]) =>
    [...tos].filter((to) => (layerOf.get(to) ?? -1) > (layerOf.get(from) ?? Infinity)).map((to) => `${from} -> ${to}`),
  );
  return { unplaced, upward };
}

/** The trees the lint rule watches, relative to the lint's working directory. */
const TREES = ['backend', 'renderer/src', 'app'];

/**
 * ESLint plugin `architecture` with the rule `no-cycle`: a file that sits on a file cycle, or that
 * imports into another area of an area cycle, is reported. The graph is read from disk once per tree
 * and lint run (the lint of one file cannot see a cycle; the tree's graph can).
 */
export const architecturePlugin = {
  rules: {
    'no-cycle': {
      meta: {
        type: 'problem',
        schema: [],
        docs: { description: 'No import cycle between files or areas of backend/, renderer/src/ or app/.' },
      },
      create(context) {
        const relative = path.relative(context.cwd, context.filename).split(path.sep).join('/');
        const tree = TREES.find((t) => relative.startsWith(`${t}/`));
        if (!tree) return {};
        const found = cyclesOf(context.cwd, tree);
        const file = relative.slice(tree.length + 1);
        return {
          Program(node) {
            const fileCycle = found.files.find((c) => c.includes(file));
            if (fileCycle) context.report({ node, message: `Import cycle between files of ${tree}/: ${fileCycle.join(', ')}.` });
            const area = areaOf(file);
            const areaCycle = found.areas.find((c) => c.includes(area));
            if (!areaCycle) return;
            const into = [...(found.graph.files.get(file) ?? [])].map(areaOf).filter((a) => a !== area && areaCycle.includes(a));
            if (into.length > 0) {
              context.report({
                node,
                message: `Import cycle between areas of ${tree}/: ${areaCycle.join(', ')} (this file imports ${[...new Set(into)].join(', ')}).`,
              });
            }
          },
        };
      },
    },
  },
};

const cache = new Map();
function cyclesOf(cwd, tree) {
  const key = path.join(cwd, tree);
  if (!cache.has(key)) {
    const graph = readGraph(key);
    cache.set(key, { graph, files: cycles(graph.files), areas: cycles(areaGraph(graph)) });
  }
  return cache.get(key);
}
