import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import * as escape from 'cross-spawn/lib/util/escape.js';

// DESIGN 9: `"command": "npx"` must work everywhere. The command is looked up through PATH (and
// PATHEXT on Windows) before anything is spawned, so "not found" can name the folders searched; on
// Windows a `.cmd`/`.bat` (npx, npm, and every node_modules/.bin shim) only runs through cmd.exe.

export interface LookupEnv {
  platform: NodeJS.Platform;
  /** The child's environment (its PATH, PATHEXT, ComSpec). */
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Injected in tests; true for an existing regular file. */
  isFile?: (file: string) => boolean;
}

export type Resolution = { found: true; file: string } | { found: false; searched: string[] };

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** A regular file that this process may execute (a shell skips the others on PATH too). */
function realIsFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An environment value by name, case-insensitively on Windows (`Path`, `PATH`). */
export function envValue(env: LookupEnv['env'], name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/** Where `command` would run from, or the folders that were searched in vain. */
export function resolveCommand(command: string, lookup: LookupEnv): Resolution {
  const { platform } = lookup;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const isFile = lookup.isFile ?? realIsFile;
  const exts =
    platform === 'win32'
      ? (envValue(lookup.env, 'PATHEXT', platform) || DEFAULT_PATHEXT)
          .split(';')
          .map((e) => e.trim())
          .filter(Boolean)
      : [];
  const candidates = (base: string): string[] => {
    if (platform !== 'win32') return [base];
    // A name that already ends in a PATHEXT extension is tried as is first (`npx.cmd`).
    const own = exts.some((e) => base.toLowerCase().endsWith(e.toLowerCase())) ? [base] : [];
    return [...own, ...exts.map((e) => base + e.toLowerCase())];
  };
  const hasSeparator = platform === 'win32' ? /[\\/]/.test(command) : command.includes('/');
  if (hasSeparator) {
    const base = p.resolve(lookup.cwd ?? process.cwd(), command);
    const file = candidates(base).find(isFile);
    return file ? { found: true, file } : { found: false, searched: [p.dirname(base)] };
  }
  const dirs = (envValue(lookup.env, 'PATH', platform) ?? '')
    .split(platform === 'win32' ? ';' : ':')
    .map((d) => d.replace(/^"(.*)"$/, '$1'))
    .filter(Boolean);
  // Windows also runs what sits in the working folder.
  if (platform === 'win32' && lookup.cwd) dirs.unshift(lookup.cwd);
  for (const dir of dirs) {
    const file = candidates(p.join(dir, command)).find(isFile);
    if (file) return { found: true, file };
  }
  return { found: false, searched: dirs };
}

export interface SpawnLine {
  command: string;
  args: string[];
  /** Node must pass the arguments unquoted (they are already quoted for cmd.exe). */
  verbatim: boolean;
}

/**
 * How to spawn a resolved file: as is, except a Windows batch file, which runs as
 * `cmd.exe /d /s /c "<quoted line>"` with cross-spawn's quoting (meta characters escaped twice
 * for node_modules/.bin shims, which cmd.exe expands once more).
 */
export function spawnLine(file: string, args: string[], platform: NodeJS.Platform, env: LookupEnv['env']): SpawnLine {
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(file)) return { command: file, args, verbatim: false };
  const shim = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i.test(file);
  const line = [escape.command(path.win32.normalize(file)), ...args.map((a) => escape.argument(a, shim))].join(' ');
  return { command: envValue(env, 'ComSpec', platform) || 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], verbatim: true };
}
