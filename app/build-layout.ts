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
