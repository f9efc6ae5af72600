// The backend's layers, bottom first: the one list that the lint (eslint.config.mjs) and the
// import-graph test (test/architecture/) read; docs/architecture.md explains it.
// An area (a folder under backend/, or a file directly in it) imports only areas of its own
// layer or of a lower one, never in a circle. A new area must be placed here before it lints.

/** @type {{ name: string, areas: string[] }[]} */
export const BACKEND_LAYERS = [
  { name: 'base', areas: ['util', 'version.ts', 'log'] },
  { name: 'http helpers', areas: ['http'] },
  { name: 'data directory', areas: ['data', 'backup'] },
  { name: 'stores', areas: ['config', 'profiles', 'workspaces', 'pairing', 'selfhost', 'swap', 'attachments'] },
  { name: 'protocols', areas: ['llm', 'auth', 'tokens'] },
  { name: 'tool contract', areas: ['tools'] },
  { name: 'tool sources', areas: ['mcp', 'skills', 'web', 'knowledge'] },
  { name: 'chat loop', areas: ['chat'] },
  { name: 'routes', areas: ['ws', 'api'] },
  { name: 'command line', areas: ['cli'] },
  { name: 'composition', areas: ['service-stores.ts', 'service.ts', 'main.ts'] },
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regex for import specifiers that reach one of `areas` from a file inside backend/ (any depth). */
function reaching(areas, fromTopLevel) {
  const names = areas.map((a) => (a.endsWith('.ts') ? `${escape(a.slice(0, -3))}\\.js$` : `${escape(a)}/`));
  return `^${fromTopLevel ? '\\./' : '(\\.\\./)+'}(${names.join('|')})`;
}

/** ESLint flat-config blocks: one `no-restricted-imports` per area, naming the layers above it. */
export function backendLayerRules() {
  const common = {
    paths: [{ name: 'electron', message: 'The backend runs on plain Node too: it never imports electron (DESIGN 1).' }],
  };
  return BACKEND_LAYERS.flatMap((layer, i) => {
    const above = BACKEND_LAYERS.slice(i + 1).flatMap((l) => l.areas);
    return layer.areas.map((area) => {
      const topLevel = area.endsWith('.ts');
      const patterns = [
        { regex: '^(\\.\\./)+app/', message: 'The backend never imports the desktop shell (app/).' },
        ...(above.length > 0
          ? [
              {
                regex: reaching(above, topLevel),
                message: `Bad layering: ${area} (layer "${layer.name}") may import only its own or lower layers (scripts/backend-layers.mjs, docs/architecture.md).`,
              },
            ]
          : []),
      ];
      return {
        files: [topLevel ? `backend/${area}` : `backend/${area}/**/*.ts`],
        rules: { 'no-restricted-imports': ['error', { ...common, patterns }] },
      };
    });
  });
}
