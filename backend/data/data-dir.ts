import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readIfExists, removeStaleTempFiles, writeFileAtomic } from './atomic-write.js';

/** The layout of the data directory (spec 2.1). */
export function dataPaths(root: string) {
  return {
    root,
    config: path.join(root, 'config.yaml'),
    workspacesIndex: path.join(root, 'workspaces.json'),
    globalMcp: path.join(root, 'global_mcp_servers.json'),
    workspacesDir: path.join(root, 'workspaces'),
    workspaceDir: (id: string) => path.join(root, 'workspaces', id),
    workspaceMeta: (id: string) => path.join(root, 'workspaces', id, 'workspace.json'),
    workspaceMcp: (id: string) => path.join(root, 'workspaces', id, 'mcp_config.json'),
    workspaceSessions: (id: string) => path.join(root, 'workspaces', id, 'sessions'),
    trashDir: path.join(root, 'trash'),
    profilesDir: path.join(root, 'profiles'),
    profile: (id: string) => path.join(root, 'profiles', `${id}.yaml`),
    skillsDir: path.join(root, 'skills'),
    skill: (name: string) => path.join(root, 'skills', name, 'SKILL.md'),
    selfhostDir: path.join(root, 'selfhost'),
    pairing: path.join(root, 'selfhost', 'pairing.json'),
    bootstrapSecret: path.join(root, 'selfhost', 'bootstrap_secret'),
    /** OAuth tokens of remote tool servers (DESIGN 9). */
    mcpTokens: path.join(root, 'selfhost', 'mcp_tokens.json'),
    swapConfig: path.join(root, 'swap.yaml'),
  };
}

export type DataPaths = ReturnType<typeof dataPaths>;

export function defaultDataDir(): string {
  return path.join(os.homedir(), '.service');
}

const INITIAL_CONFIG = `# Model providers and defaults. Edit by hand or through the API; comments are kept.
providers: []
defaults: {}
`;

/** Files that hold secrets: created 0600, repaired to 0600 when found laxer. */
export function secretFiles(p: DataPaths): string[] {
  // global_mcp_servers.json carries tool servers' env and headers (tokens).
  return [p.config, p.pairing, p.bootstrapSecret, p.globalMcp, p.mcpTokens];
}

/**
 * Creates the data directory on first start (0700) with the spec's layout, repairs lax modes
 * on existing secret files and removes temporary files a crash left behind. Returns warnings.
 */
export async function prepareDataDir(p: DataPaths): Promise<string[]> {
  const warnings: string[] = [];
  await fs.mkdir(p.root, { recursive: true, mode: 0o700 });
  for (const dir of [p.workspacesDir, p.profilesDir, p.skillsDir, p.selfhostDir]) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  }
  for (const dir of [p.root, p.selfhostDir]) {
    if (await repairMode(dir, 0o700)) warnings.push(`warning: ${dir} had a lax mode; set to 0700`);
  }
  for (const file of secretFiles(p)) {
    if (await repairMode(file, 0o600)) warnings.push(`warning: ${file} had a lax mode; set to 0600`);
  }
  // Skills and workspaces are written one folder deeper (skills/<name>/SKILL.md, workspaces/<id>/…).
  const nested = await Promise.all([p.skillsDir, p.workspacesDir].map(subdirectories));
  await Promise.all([p.root, p.selfhostDir, p.profilesDir, ...nested.flat()].map(removeStaleTempFiles));
  if ((await readIfExists(p.config)) === undefined) await writeFileAtomic(p.config, INITIAL_CONFIG, { mode: 0o600 });
  if ((await readIfExists(p.workspacesIndex)) === undefined) {
    await writeFileAtomic(p.workspacesIndex, `${JSON.stringify({ workspaces: [] }, null, 2)}\n`, { mode: 0o600 });
  }
  if ((await readIfExists(p.globalMcp)) === undefined) {
    await writeFileAtomic(p.globalMcp, `${JSON.stringify({ mcpServers: {} }, null, 2)}\n`, { mode: 0o600 });
  }
  return warnings;
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
}

/** Tightens a path's mode when group/other bits are set; true when it changed something. */
async function repairMode(target: string, mode: number): Promise<boolean> {
  if (process.platform === 'win32') return false; // POSIX modes do not apply; the profile folder is per-user
  try {
    const stat = await fs.stat(target);
    if ((stat.mode & 0o077) === 0) return false;
    await fs.chmod(target, mode);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
