// Lint for the whole tree: `npm run lint` (part of `npm run check`, which `npm test` runs first).
// Type-aware rules catch what tsc does not: floating promises, promises passed where a callback's
// result is ignored, switches that miss a union member; the React hooks rules guard the renderer.
// The import rules at the end hold the architecture: the layers of backend/, renderer/ and app/ point
// one way (the lists are in scripts/backend-layers.mjs and scripts/renderer-layers.mjs), and the
// renderer and the app reach the backend only through its contract files (`*-api.ts`: types and
// schemas, nothing that drags express or ethers along); `architecture/no-cycle` (scripts/import-graph.mjs)
// fails on a cycle between files or areas of any of the three trees.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { backendLayerRules } from './scripts/backend-layers.mjs';
import { architecturePlugin } from './scripts/import-graph.mjs';
import { appLayerRules, rendererLayerRules } from './scripts/renderer-layers.mjs';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'dist-app/', 'release/', 'test-output/', 'bench-results/', 'resources/', 'test/**/fixtures/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: {
          // The two Vite configs belong to tsconfig.tools.json; the service finds them by default project.
          allowDefaultProject: ['vite.app.config.ts', 'renderer/vite.config.ts'],
          defaultProject: 'tsconfig.tools.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      'prefer-const': ['error', { destructuring: 'all' }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    // Tests and benchmarks read untyped JSON responses and assert on them field by field.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      // A missed hook dependency is a bug here, not a hint.
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'URL',
          'Buffer',
          'fetch',
          'performance',
          'AbortController',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  ...backendLayerRules(),
  ...rendererLayerRules(),
  ...appLayerRules(),
  {
    // The import rules above see one import at a time; this one sees each tree's whole graph.
    files: ['backend/**/*.ts', 'renderer/src/**/*.{ts,tsx}', 'app/**/*.ts'],
    plugins: { architecture: architecturePlugin },
    rules: { 'architecture/no-cycle': 'error' },
  },
);
