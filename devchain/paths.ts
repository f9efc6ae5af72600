import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file runs from dist/devchain/, so the repository root is two levels up.
const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const contractsDir = path.join(repoRoot, 'contracts');
export const compiledCacheDir = path.join(repoRoot, 'dist', 'contracts');
export const nodeModulesDir = path.join(repoRoot, 'node_modules');
