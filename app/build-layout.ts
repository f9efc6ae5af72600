import path from 'node:path';

/**
 * Where the builds put things and where the packaged app finds them. The Vite config, the
 * electron-builder config (checked by a test) and the main process all follow this one table.
 */
export const BUILD_OUTPUT = {
  dir: 'dist-app',
  main: 'dist-app/main/index.js',
  preload: 'dist-app/preload/index.cjs',
  /** `.mjs`: outside the asar there is no package.json saying "type": "module". */
  backend: 'dist-app/backend/service-backend.mjs',
  /**
   * The backend itself, beside the small entry above, which checks the Node version and turns on
   * Node's compile cache before loading it (a module compiled before the cache is on is not cached).
   */
  backendMain: 'dist-app/backend/service-main.mjs',
  /**
   * What the backend loads on first use (PDF text, the swap builder and ethers, the MCP SDK and its
   * OAuth, certificate generation, the provider adapters), split out so a start neither parses nor
   * keeps it: one self-contained file made the bundle idle heavier than the unbundled build.
   */
  backendChunks: 'dist-app/backend/chunks',
  /** The knowledge parse worker's entry (a worker thread of the backend), shipped with the chunks. */
  backendParseWorker: 'dist-app/backend/chunks/kb-parse-worker.mjs',
  /** Built by the renderer's own Vite config. */
  renderer: 'dist/renderer',
} as const;

/** Inside the package: the backend goes to resources/backend (outside the asar, so it can be spawned). */
export const PACKAGED = {
  backendDir: 'backend',
  rendererDir: 'renderer',
} as const;

export interface RuntimePaths {
  backendEntry: string;
  rendererDir: string;
  preload: string;
}

/**
 * `appRoot` is two levels above the main bundle (dist-app/main/index.js): the repository in
 * development, the asar root when packaged.
 */
export function runtimePaths(options: { isPackaged: boolean; appRoot: string; resourcesPath: string }): RuntimePaths {
  const { appRoot } = options;
  const preload = path.join(appRoot, BUILD_OUTPUT.preload);
  if (!options.isPackaged) {
    return { backendEntry: path.join(appRoot, BUILD_OUTPUT.backend), rendererDir: path.join(appRoot, BUILD_OUTPUT.renderer), preload };
  }
  return {
    backendEntry: path.join(options.resourcesPath, PACKAGED.backendDir, path.basename(BUILD_OUTPUT.backend)),
    rendererDir: path.join(appRoot, PACKAGED.rendererDir),
    preload,
  };
}

/**
 * The Node the backend bundle is built for (Vite's `build.target`): the project's floor, so the one
 * file runs both on plain Node >= 22 and on the Node that Electron embeds.
 */
export const BACKEND_BUNDLE_TARGET = 'node22';

/**
 * The runtime inside the desktop app. Electron 45 embeds Node v24.21.0 (Electron 45.0.0 release
 * notes: "Node.js from v24.18.1 to v24.21.0"); `moduleVersion` is the NODE_MODULE_VERSION the
 * electron package ships in its `abi_version` file, which test/app/node-floor.test.ts compares with
 * the installed package so that an Electron upgrade makes this record be revisited.
 */
export const ELECTRON_RUNTIME = { electronMajor: 45, node: '24.21.0', moduleVersion: 150 } as const;
