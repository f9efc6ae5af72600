// The layers of the renderer (renderer/src/) and of the desktop shell (app/), bottom first: the lists
// the lint (eslint.config.mjs) and the import-graph test (test/architecture/) read, as they read
// scripts/backend-layers.mjs for backend/. docs/architecture-renderer.md explains the order.
// An area (a folder, or a file directly in the root) imports only areas of its own layer or of a
// lower one, never in a circle. A new area must be placed here before it lints.
//
// Renderer: base (i18n, platform bridge, theme) → api client → ui kit and navigation → feature parts
// other features reuse → feature pages → pages built on other pages → shell → app.
// App: base (logs, desktop pieces, remote book) → supervisor → ipc contract → flows → entry points.

/** @typedef {{ name: string, areas: string[] }} Layer */

/** @type {Layer[]} */
export const RENDERER_LAYERS = [
  { name: 'base', areas: ['i18n', 'platform', 'theme'] },
  { name: 'api client', areas: ['api'] },
  { name: 'ui kit and navigation', areas: ['ui', 'nav'] },
  { name: 'feature parts', areas: ['providers', 'remote', 'devices', 'preview', 'web', 'knowledge'] },
  { name: 'feature pages', areas: ['chat', 'profiles', 'workspaces', 'tools', 'skills', 'logs', 'backups', 'swap'] },
  { name: 'pages built on pages', areas: ['quick-ask', 'connect', 'keyboard'] },
  { name: 'shell', areas: ['shell'] },
  { name: 'app', areas: ['app.tsx', 'main.tsx'] },
];

/** @type {Layer[]} */
export const APP_LAYERS = [
  { name: 'base', areas: ['build-layout.ts', 'logs', 'desktop', 'remote'] },
  { name: 'supervisor', areas: ['supervisor'] },
  { name: 'ipc contract', areas: ['ipc'] },
  { name: 'flows', areas: ['pairing'] },
  { name: 'entry points', areas: ['main', 'preload', 'backend-entry'] },
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isFile = (area) => /\.tsx?$/.test(area);

/** A regex for import specifiers that reach one of `areas` (with or without `.js`) from a file of the tree. */
function reaching(areas, fromTopLevel) {
  const names = areas.map((a) => (isFile(a) ? `${escape(a.replace(/\.tsx?$/, ''))}(\\.js)?$` : `${escape(a)}/`));
  return `^${fromTopLevel ? '\\./' : '(\\.\\./)+'}(${names.join('|')})`;
}

/**
 * ESLint flat-config blocks for one tree: one `no-restricted-imports` per area, naming the layers
 * above it plus the tree's own fences (`paths`, `patterns`), since a later block replaces the rule.
 */
function layerRules(root, layers, fences, where) {
  // The fences alone for the whole tree first: an area not yet placed still gets them (the
  // import-graph test then names it).
  const everywhere = { files: [`${root}/**/*.{ts,tsx}`], rules: { 'no-restricted-imports': ['error', fences] } };
  const perArea = layers.flatMap((layer, i) => {
    const above = layers.slice(i + 1).flatMap((l) => l.areas);
    return layer.areas.map((area) => {
      const patterns = [
        ...fences.patterns,
        ...(above.length > 0
          ? [
              {
                regex: reaching(above, isFile(area)),
                message: `Bad layering: ${area} (layer "${layer.name}") may import only its own or lower layers (${where}).`,
              },
            ]
          : []),
      ];
      return {
        files: [isFile(area) ? `${root}/${area}` : `${root}/${area}/**/*.{ts,tsx}`],
        rules: { 'no-restricted-imports': ['error', { paths: fences.paths, patterns }] },
      };
    });
  });
  return [everywhere, ...perArea];
}

export function rendererLayerRules() {
  const browser = 'The renderer runs in a plain browser too (DESIGN 1).';
  return layerRules(
    'renderer/src',
    RENDERER_LAYERS,
    {
      paths: [{ name: 'electron', message: browser }],
      patterns: [
        {
          regex: 'backend/(?!.*-api(\\.js)?$)',
          message: "The renderer takes only types and schemas from the backend's contract files (`*-api.ts`).",
        },
        { regex: '^node:', message: browser },
      ],
    },
    'scripts/renderer-layers.mjs, docs/architecture-renderer.md',
  );
}

export function appLayerRules() {
  return layerRules(
    'app',
    APP_LAYERS,
    {
      paths: [],
      patterns: [
        {
          // The shell shares the data-directory helpers, the snapshots (a backup before an update) and
          // the CLI sub-commands, and starts main.js.
          regex: 'backend/(?!(data|backup|cli)/|main\\.js$|.*-api\\.js$)',
          message: 'The app takes from the backend only contract files (`*-api.ts`), data/, backup/ and cli/ helpers, or main.js.',
        },
        {
          regex: '^(\\.\\./)+renderer/',
          message: 'The desktop shell talks to the renderer over IPC (app/ipc/contract.ts), never by import.',
        },
      ],
    },
    'scripts/renderer-layers.mjs',
  );
}
