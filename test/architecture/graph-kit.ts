// The import-graph checks (scripts/import-graph.mjs, which the lint's `architecture/no-cycle` rule
// also runs), typed for the architecture tests.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type Layer = { name: string; areas: string[] };

export interface Graph {
  /**
   * File (relative to the tree's root, `/` separators) → files it imports. A target that leaves the
   * tree starts with `../`; one that resolves to no file of the tree is kept as written (with `.ts`).
   */
  files: Map<string, Set<string>>;
  /** File → bare specifiers (packages, node: modules) it imports. */
  packages: Map<string, Set<string>>;
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const kit = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'import-graph.mjs')).href)) as {
  readGraph(root: string): Graph;
  areaOf(file: string): string;
  cycles(adjacency: Map<string, Set<string>>): string[][];
  areaGraph(graph: Graph): Map<string, Set<string>>;
  unresolved(graph: Graph): string[];
  layering(areas: Map<string, Set<string>>, layers: Layer[]): { unplaced: string[]; upward: string[] };
  architecturePlugin: object;
};

/** The graph of every `.ts`/`.tsx` file under `root`; imports of styles and other assets are left out. */
export const readGraph = kit.readGraph;
/** The area of a file: its top folder under the root, or the file itself when it sits directly there. */
export const areaOf = kit.areaOf;
/** Strongly connected components with more than one node (or a self-loop): the cycles. */
export const cycles = kit.cycles;
/** Area → areas it imports (targets outside the tree left out). */
export const areaGraph = kit.areaGraph;
/** Imports inside the tree that resolve to no file of it. */
export const unresolved = kit.unresolved;
/** Areas no layer names, and `from -> to` area imports that point to a higher layer. */
export const layering = kit.layering;
/** The ESLint plugin whose `no-cycle` rule reports file and area cycles. */
export const architecturePlugin = kit.architecturePlugin;
