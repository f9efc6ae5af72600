// Builds the Electron side with Vite: `vite build -c vite.app.config.ts --mode main|preload|backend`.
// The renderer has its own Vite config (renderer/); tsc type-checks all of this (`npm run build`).
import { builtinModules } from 'node:module';
import path from 'node:path';
import { defineConfig, type UserConfig } from 'vite';
import { BUILD_OUTPUT } from './app/build-layout.ts';

const NODE_BUILTINS = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const TARGETS = {
  // ESM: the repository's package.json (copied into the asar) says "type": "module".
  main: { entry: 'app/main/index.ts', out: BUILD_OUTPUT.main, format: 'es' },
  // Sandboxed preloads cannot be ES modules.
  preload: { entry: 'app/preload/index.ts', out: BUILD_OUTPUT.preload, format: 'cjs' },
  // One self-contained file (express, ws, yaml, zod inlined): it runs outside the asar, without node_modules.
  backend: { entry: 'app/backend-entry/index.ts', out: BUILD_OUTPUT.backend, format: 'es' },
} as const;

export default defineConfig(({ mode }): UserConfig => {
  const target = TARGETS[mode as keyof typeof TARGETS];
  if (!target) throw new Error(`--mode must be one of ${Object.keys(TARGETS).join(', ')} (got "${mode}")`);
  return {
    publicDir: false,
    logLevel: 'warn',
    ssr: { noExternal: true, external: ['electron'], target: 'node' },
    build: {
      ssr: target.entry,
      outDir: path.dirname(target.out),
      emptyOutDir: true,
      target: 'node20',
      minify: false,
      sourcemap: true,
      reportCompressedSize: false,
      rolldownOptions: {
        external: ['electron', ...NODE_BUILTINS, /^(bufferutil|utf-8-validate)$/],
        output: {
          format: target.format,
          entryFileNames: path.basename(target.out),
          codeSplitting: false,
        },
      },
    },
  };
});
