// DESIGN 9: a tool server is someone else's program. It gets what a program needs to run (where
// things are, who the user is, the language) and the entry's own `env`, never the backend's
// secrets (provider keys, SERVICE_*, the bootstrap secret, ELECTRON_RUN_AS_NODE).

const SHARED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TZ', 'TMPDIR', 'TEMP', 'TMP'];
const WINDOWS = [
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'PROGRAMFILES',
  'PROGRAMDATA',
  'HOMEDRIVE',
  'HOMEPATH',
];
const PREFIXES = ['LC_', 'XDG_'];

export interface ChildEnvOptions {
  platform?: NodeJS.Platform;
  /** PATH to hand down instead of the backend's own (the login shell's, with `-shell-env`). */
  path?: string;
}

/** Whether a variable of the backend may reach a tool server. Windows names are case-insensitive. */
export function inheritable(name: string, platform: NodeJS.Platform = process.platform): boolean {
  const key = platform === 'win32' ? name.toUpperCase() : name;
  if (SHARED.includes(key) || PREFIXES.some((p) => key.startsWith(p) && key.length > p.length)) return true;
  return platform === 'win32' && WINDOWS.includes(key);
}

/** The environment of a stdio tool server: the allow-listed part of `base`, then the entry's `env`. */
export function childEnv(
  base: NodeJS.ProcessEnv,
  entryEnv: Record<string, string> | undefined,
  options: ChildEnvOptions = {},
): Record<string, string> {
  const platform = options.platform ?? process.platform;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && inheritable(name, platform)) env[name] = value;
  }
  if (options.path) {
    // Windows spells it `Path`; replace whichever spelling is there.
    const pathKey = Object.keys(env).find((k) => (platform === 'win32' ? k.toUpperCase() === 'PATH' : k === 'PATH')) ?? 'PATH';
    env[pathKey] = options.path;
  }
  return { ...env, ...entryEnv };
}
