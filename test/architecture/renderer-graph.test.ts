// The renderer's and the desktop shell's architecture as data, as import-graph.test.ts holds the
// backend's: no cycle between files or areas of renderer/src/ or app/, every import points down the
// layer lists the lint also reads (scripts/renderer-layers.mjs), and each tree reaches outside itself
// only where it may. The last cases plant a cycle and an upward import and watch the graph checks,
// the import rules and the `architecture/no-cycle` lint rule fail on them.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { architecturePlugin, areaGraph, cycles, layering, readGraph, unresolved, type Graph, type Layer } from './graph-kit.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RENDERER = path.join(ROOT, 'renderer', 'src');
const APP = path.join(ROOT, 'app');

const layersModule = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'renderer-layers.mjs')).href)) as {
  RENDERER_LAYERS: Layer[];
  APP_LAYERS: Layer[];
  rendererLayerRules(): Linter.Config[];
  appLayerRules(): Linter.Config[];
};
const { RENDERER_LAYERS, APP_LAYERS } = layersModule;

/** Every finding of the graph checks on one tree, empty when it is sound. */
function problems(graph: Graph, layers: Layer[]) {
  const areas = areaGraph(graph);
  return { unresolved: unresolved(graph), fileCycles: cycles(graph.files), areaCycles: cycles(areas), ...layering(areas, layers) };
}
const sound = { unresolved: [], fileCycles: [], areaCycles: [], unplaced: [], upward: [] };

/** Imports that leave the tree, as `file -> target` (target relative to the repository). */
function outside(graph: Graph, tree: string): string[] {
  return [...graph.files].flatMap(([f, ts]) =>
    [...ts].filter((t) => t.startsWith('../')).map((t) => `${f} -> ${path.posix.normalize(`${tree}/${t}`)}`),
  );
}

const printed = (title: string, layers: Layer[]) =>
  `${title} layers (an area imports only its own layer or lower ones):\n${layers.map((l, i) => `  ${i + 1}. ${l.name}: ${l.areas.join(', ')}`).join('\n')}`;

describe('renderer import graph', () => {
  const graph = readGraph(RENDERER);

  it('prints the layer order, bottom first, and has no cycle, unplaced area or upward import', () => {
    console.log(printed('renderer', RENDERER_LAYERS));
    assert.ok(graph.files.size > 100, `read ${graph.files.size} renderer files`);
    assert.deepEqual(problems(graph, RENDERER_LAYERS), sound, 'new areas go into scripts/renderer-layers.mjs');
  });

  it('reaches outside renderer/src only for backend contract files and the app IPC contract', () => {
    const allowed = /^(backend\/.*-api\.ts|app\/ipc\/contract\.ts)$/;
    assert.deepEqual(
      outside(graph, 'renderer/src').filter((line) => !allowed.test(line.split(' -> ')[1])),
      [],
    );
    const node = [...graph.packages].flatMap(([f, specs]) =>
      [...specs].filter((s) => s === 'electron' || s.startsWith('node:')).map((s) => `${f}: ${s}`),
    );
    assert.deepEqual(node, []);
  });
});

describe('app import graph', () => {
  const graph = readGraph(APP);

  it('prints the layer order, bottom first, and has no cycle, unplaced area or upward import', () => {
    console.log(printed('app', APP_LAYERS));
    assert.ok(graph.files.size > 30, `read ${graph.files.size} app files`);
    assert.deepEqual(problems(graph, APP_LAYERS), sound, 'new areas go into scripts/renderer-layers.mjs');
  });

  it('never imports the renderer', () => {
    assert.deepEqual(
      outside(graph, 'app').filter((line) => line.split(' -> ')[1].startsWith('renderer/')),
      [],
    );
  });
});

describe('the renderer checks fail on a planted cycle', () => {
  const copyRoot = mkdtempSync(path.join(tmpdir(), 'renderer-graph-'));
  const copy = path.join(copyRoot, 'renderer', 'src');
  after(() => rmSync(copyRoot, { recursive: true, force: true }));
  cpSync(RENDERER, copy, { recursive: true });

  it('finds a file cycle, an area cycle and the upward import in a copy of renderer/src, and so does the lint', async () => {
    // ui/controls.tsx reaching up into the shell (which imports the ui kit): an area cycle and an upward import.
    const controls = path.join(copy, 'ui', 'controls.tsx');
    writeFileSync(
      controls,
      `import type { Pages } from '../shell/pages';\nexport type Planted = typeof Pages;\n${readFileSync(controls, 'utf8')}`,
    );
    // Two files of one area that import each other: a file cycle the area graph cannot see.
    writeFileSync(path.join(copy, 'chat', 'planted-a.ts'), "import { b } from './planted-b';\nexport const a = () => b;\n");
    writeFileSync(
      path.join(copy, 'chat', 'planted-b.ts'),
      "import type { a } from './planted-a';\nexport const b: typeof a | null = null;\n",
    );
    const found = problems(readGraph(copy), RENDERER_LAYERS);
    assert.ok(
      found.fileCycles.some((c) => c.join() === 'chat/planted-a.ts,chat/planted-b.ts'),
      JSON.stringify(found.fileCycles),
    );
    assert.ok(found.fileCycles.some((c) => c.includes('ui/controls.tsx') && c.includes('shell/pages.tsx')));
    assert.ok(
      found.areaCycles.some((c) => c.includes('ui') && c.includes('shell')),
      JSON.stringify(found.areaCycles),
    );
    assert.ok(found.upward.includes('ui -> shell'), JSON.stringify(found.upward));

    // The lint's `architecture/no-cycle` rule (part of `npm run check`) reads the same graph.
    const eslint = new ESLint({
      cwd: copyRoot,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.{ts,tsx}'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
        {
          files: ['renderer/src/**/*.{ts,tsx}'],
          plugins: { architecture: architecturePlugin as ESLint.Plugin },
          rules: { 'architecture/no-cycle': 'error' },
        },
      ],
    });
    const results = await eslint.lintFiles([
      'renderer/src/chat/planted-a.ts',
      'renderer/src/ui/controls.tsx',
      'renderer/src/i18n/i18n.tsx',
    ]);
    const reported = Object.fromEntries(
      results.map((r) => [path.relative(copy, r.filePath).split(path.sep).join('/'), r.messages.map((m) => m.message)]),
    );
    assert.match(
      reported['chat/planted-a.ts'].join('\n'),
      /Import cycle between files of renderer\/src\/: chat\/planted-a\.ts, chat\/planted-b\.ts/,
    );
    assert.match(
      reported['ui/controls.tsx'].join('\n'),
      /Import cycle between areas of renderer\/src\/: .*shell.*ui.* \(this file imports shell\)/,
    );
    assert.deepEqual(reported['i18n/i18n.tsx'], [], 'a file on no cycle is not reported');
  });

  it('finds a new area that no layer places', () => {
    const found = problems(
      {
        files: new Map([
          ['widgets/w.tsx', new Set(['ui/controls.tsx'])],
          ['ui/controls.tsx', new Set<string>()],
        ]),
        packages: new Map(),
      },
      RENDERER_LAYERS,
    );
    assert.deepEqual(found.unplaced, ['widgets']);
  });

  it('the lint refuses an upward import in renderer/ and app/, and allows a downward one', async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.{ts,tsx}'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
        ...layersModule.rendererLayerRules(),
        ...layersModule.appLayerRules(),
      ],
    });
    const lint = async (code: string, file: string) =>
      (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages.map((m) => `${m.ruleId}: ${m.message}`);
    const [up] = await lint("import { Pages } from '../shell/pages';\nexport const p = Pages;\n", 'renderer/src/api/planted.tsx');
    assert.match(up ?? '', /no-restricted-imports: .*Bad layering: api \(layer "api client"\)/);
    const [remoteUp] = await lint(
      "import { LanguagePicker } from '../shell/layout';\nexport const l = LanguagePicker;\n",
      'renderer/src/remote/planted.tsx',
    );
    assert.match(remoteUp ?? '', /Bad layering: remote/);
    const [appUp] = await lint("import { x } from '../main/index.js';\nexport const y = x;\n", 'app/logs/planted.ts');
    assert.match(appUp ?? '', /Bad layering: logs/);
    assert.deepEqual(await lint("import { useT } from '../i18n/i18n';\nexport const t = useT;\n", 'renderer/src/chat/planted.tsx'), []);
    // An area no layer places yet still keeps the renderer's fences.
    const [fenced] = await lint("import { readFile } from 'node:fs';\nexport const r = readFile;\n", 'renderer/src/widgets/planted.tsx');
    assert.match(fenced ?? '', /plain browser/);
  });
});
