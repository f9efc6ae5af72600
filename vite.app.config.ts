// Builds the Electron side with Vite: `vite build -c vite.app.config.ts --mode main|preload|backend`.
// The renderer has its own Vite config (renderer/); tsc type-checks all of this (`npm run build`).
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { BACKEND_BUNDLE_TARGET, BUILD_OUTPUT } from './app/build-layout.ts';

const NODE_BUILTINS = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const TARGETS = {
  // ESM: the repository's package.json (copied into the asar) says "type": "module".
  main: { entry: 'app/main/index.ts', out: BUILD_OUTPUT.main, format: 'es', empty: true },
  // Sandboxed preloads cannot be ES modules.
  preload: { entry: 'app/preload/index.ts', out: BUILD_OUTPUT.preload, format: 'cjs', empty: true },
  // The backend's small entry, then the backend itself as one self-contained file (express, ws, yaml,
  // zod inlined): both run outside the asar, without node_modules. `backend` empties the folder, so it
  // is built before `backend-main`.
  backend: { entry: 'app/backend-entry/index.ts', out: BUILD_OUTPUT.backend, format: 'es', empty: true },
  'backend-main': { entry: 'backend/main.ts', out: BUILD_OUTPUT.backendMain, format: 'es', empty: false },
} as const;

/**
 * The knowledge parse worker (backend/knowledge/parse-pool.ts starts it with worker_threads) as an
 * entry of its own in chunks/, and the pool's URL of it rewritten to where the bundle puts it:
 * code loaded in a worker must not be the backend's entry, which would start a second backend.
 */
function parseWorkerEntry(): Plugin {
  const worker = fileURLToPath(new URL('./backend/knowledge/parse-worker.ts', import.meta.url));
  const fileName = path.posix.relative(path.posix.dirname(BUILD_OUTPUT.backendMain), BUILD_OUTPUT.backendParseWorker);
  // Matched after TypeScript is stripped (which may change the quotes).
  const line = /new URL\((['"])\.\/parse-worker\.js\1, import\.meta\.url\)/;
  const marker = '__KB_PARSE_WORKER_URL__';
  return {
    name: 'kb-parse-worker',
    buildStart() {
      this.emitFile({ type: 'chunk', id: worker, fileName });
    },
    transform(code, id) {
      if (!id.replace(/\\/g, '/').endsWith('backend/knowledge/parse-pool.ts')) return null;
      if (!line.test(code))
        this.error(`parse-pool.ts no longer holds new URL('./parse-worker.js', import.meta.url): update vite.app.config.ts`);
      return { code: code.replace(line, `new URL(${JSON.stringify(marker)}, import.meta.url)`), map: null };
    },
    // Only now is it known which file the pool landed in: the URL is made relative to that file.
    renderChunk(code, chunk) {
      if (!code.includes(marker)) return null;
      let rel = path.posix.relative(path.posix.dirname(chunk.fileName), fileName);
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return { code: code.replaceAll(JSON.stringify(marker), JSON.stringify(rel)), map: null };
    },
  };
}

export default defineConfig(({ mode }): UserConfig => {
  const target = TARGETS[mode as keyof typeof TARGETS];
  if (!target) throw new Error(`--mode must be one of ${Object.keys(TARGETS).join(', ')} (got "${mode}")`);
  return {
    publicDir: false,
    plugins: mode === 'backend-main' ? [parseWorkerEntry()] : [],
    logLevel: 'warn',
    ssr: { noExternal: true, external: ['electron'], target: 'node' },
    build: {
      ssr: target.entry,
      outDir: path.dirname(target.out),
      emptyOutDir: target.empty,
      target: BACKEND_BUNDLE_TARGET,
      minify: false,
      sourcemap: true,
      reportCompressedSize: false,
      rolldownOptions: {
        external: ['electron', ...NODE_BUILTINS, /^(bufferutil|utf-8-validate)$/],
        output: {
          format: target.format,
          entryFileNames: path.basename(target.out),
          // The backend's dynamic imports become chunks loaded on first use (BUILD_OUTPUT.backendChunks);
          // main, preload and the backend's small entry stay one file each.
          ...(mode === 'backend-main'
            ? { chunkFileNames: `${path.basename(BUILD_OUTPUT.backendChunks)}/[name]-[hash].mjs` }
            : { codeSplitting: false as const }),
        },
      },
    },
  };
});
