#!/usr/bin/env node
// `npm run backend -- [flags]`: the headless backend, run from the same single-file bundle the
// desktop app ships (dist-app/backend), which starts faster than the tsc output (one module to load
// instead of hundreds). It serves the built renderer from dist/renderer unless SERVICE_UI_DIR says
// otherwise. `node dist/backend/main.js [flags]` runs the unbundled build with the same flags.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
process.env.SERVICE_UI_DIR ??= path.join(root, 'dist', 'renderer');
await import(pathToFileURL(path.join(root, 'dist-app', 'backend', 'service-backend.mjs')).href);
