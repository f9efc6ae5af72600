import { defaultDataDir } from '../data/data-dir.js';
import { isLoopbackAddress } from '../http/guards.js';
import type { TlsSetting } from '../selfhost/tls-material.js';
import { assertNever } from '../util/never.js';

export interface CliOptions {
  command: 'serve' | 'reset-pairing' | 'version' | 'help' | 'backup' | 'restore';
  /** `restore FILE`: the snapshot to restore (a path, or a name in the data directory's backups/). */
  restoreFile?: string;
  /** `restore -foreign`: accept a snapshot taken on another node (content only, never its identity). */
  foreign?: boolean;
  port: number;
  host: string;
  dataDir: string;
  mcpUrl?: string;
  model?: string;
  swapPort: number | 'off';
  allowOrigins: string[];
  /** PEM file of extra CA certificates trusted for outgoing HTTPS (TLS-inspecting proxies). */
  caCerts?: string;
  /** `-tls auto` or `-tls-cert`/`-tls-key`; off by default (plain HTTP on the loopback). */
  tls: TlsSetting;
  /** `-client-ca FILE`: clients must present a certificate signed by this CA (mTLS). */
  clientCa?: string;
  /** `-allow-insecure-remote`: plain HTTP on a non-loopback address, knowingly. */
  allowInsecureRemote: boolean;
  /** `-shell-env`: tool servers use the login shell's PATH (the desktop app passes it on macOS and Linux). */
  shellEnv: boolean;
}

export class UsageError extends Error {}

export const USAGE = `usage: service [flags] [command]

commands:
  (none)          run the service
  reset-pairing   forget the credential; the next start logs a new pairing code
  backup          write a snapshot of the data directory into its backups/ folder
  restore FILE    restore a snapshot (verified first; the current state is backed up before);
                  FILE is a path or a name listed in backups/. Stop the service first.
                  Content only: this node's devices, credentials and TLS stay as they are
  version         print the version

flags (single or double dash; "-flag value" or "-flag=value"):
  -port N           HTTP port of the assistant API (default 8080; 0 = any free port)
  -host ADDR        bind address (default 127.0.0.1; non-loopback needs TLS, and logs a warning)
  -data DIR         data directory (default ~/.service)
  -mcp URL          global tool-server URL, shown as the read-only server "cli"
  -model P:M        fallback default model <providerId>:<modelId>, below config.yaml defaults
  -swap-port N|off  port of the swap route builder on 127.0.0.1 (default 8081; 0 = any free port)
  -allow-origin O   extra allowed browser Origin (repeatable), e.g. http://localhost:5173
  -ca-certs FILE    extra CA certificates (PEM) to trust for outgoing HTTPS, e.g. a proxy's root
  -tls auto|off     serve HTTPS/WSS with a self-signed ECDSA certificate kept in <data>/selfhost/tls/
  -tls-cert FILE    serve HTTPS/WSS with this PEM certificate (chain); needs -tls-key
  -tls-key FILE     the PEM private key of -tls-cert
  -client-ca FILE   require client certificates signed by this CA (mutual TLS); needs TLS
  -allow-insecure-remote
                    allow plain HTTP on a non-loopback -host (the credential crosses the network in clear)
  -shell-env        tool servers use the PATH of the user's login shell ($SHELL -ilc, read once)
  -foreign          restore: accept a snapshot taken on another node (its content only)
  -h, -help         show this help
`;

function parsePort(flag: string, value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`invalid value "${value}" for flag -${flag}: must be a port number between 0 and 65535`);
  }
  return Number(value);
}

function parseHttpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid value "${value}" for flag -${flag}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`invalid value "${value}" for flag -${flag}: must be an absolute http(s) URL`);
  }
  return value;
}

function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid value "${value}" for flag -allow-origin: must be an origin like http://localhost:5173`);
  }
  if (url.origin === 'null' || url.origin !== value.replace(/\/$/, '')) {
    throw new UsageError(
      `invalid value "${value}" for flag -allow-origin: must be an origin like http://localhost:5173 (scheme, host, optional port)`,
    );
  }
  return url.origin;
}

/** Boolean flags as Go's flag package takes them: `-flag` alone, or `-flag=true|false`. */
function parseBool(flag: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new UsageError(`invalid value "${value}" for flag -${flag}: must be true or false`);
}

const VALUE_FLAGS = [
  'port',
  'host',
  'data',
  'mcp',
  'model',
  'swap-port',
  'allow-origin',
  'ca-certs',
  'tls',
  'tls-cert',
  'tls-key',
  'client-ca',
] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];
const BOOL_FLAGS = ['allow-insecure-remote', 'shell-env', 'foreign'] as const;

interface Parsed {
  tls?: 'auto' | 'off';
  tlsCert?: string;
  tlsKey?: string;
}
const COMMANDS = ['reset-pairing', 'version', 'backup', 'restore'] as const;

/** Go-style flags: `-port 8080`, `-port=8080`, `--port 8080`, `--port=8080`. */
export function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    command: 'serve',
    port: 8080,
    host: '127.0.0.1',
    dataDir: defaultDataDir(),
    swapPort: 8081,
    allowOrigins: [],
    tls: { mode: 'off' },
    allowInsecureRemote: false,
    shellEnv: false,
  };
  const parsed: Parsed = {};
  let commandSeen = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      if (options.command === 'restore' && options.restoreFile === undefined) {
        options.restoreFile = arg;
        continue;
      }
      if (commandSeen) throw new UsageError(`unexpected argument "${arg}"`);
      if (!(COMMANDS as readonly string[]).includes(arg)) throw new UsageError(`unknown command "${arg}"`);
      options.command = arg as (typeof COMMANDS)[number];
      commandSeen = true;
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    if (name === 'h' || name === 'help') {
      options.command = 'help';
      return options;
    }
    if ((BOOL_FLAGS as readonly string[]).includes(name)) {
      const value = parseBool(name, eq === -1 ? 'true' : body.slice(eq + 1));
      if (name === 'shell-env') options.shellEnv = value;
      else if (name === 'foreign') options.foreign = value;
      else options.allowInsecureRemote = value;
      continue;
    }
    if (!(VALUE_FLAGS as readonly string[]).includes(name)) throw new UsageError(`flag provided but not defined: -${name}`);
    let value: string;
    if (eq !== -1) value = body.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: -${name}`);
      value = argv[++i];
    }
    applyFlag(options, parsed, name as ValueFlag, value);
  }
  if (options.command === 'serve') resolveTls(options, parsed);
  if (options.command === 'restore' && !options.restoreFile) throw new UsageError('restore needs the snapshot: restore FILE');
  return options;
}

/** Combines the TLS flags, and refuses plain HTTP off the loopback unless told otherwise. */
function resolveTls(options: CliOptions, parsed: Parsed): void {
  const files = parsed.tlsCert !== undefined || parsed.tlsKey !== undefined;
  if (files && parsed.tls !== undefined) throw new UsageError('flag -tls cannot be combined with -tls-cert/-tls-key: use one or the other');
  if (files && (parsed.tlsCert === undefined || parsed.tlsKey === undefined)) {
    throw new UsageError(`flag -${parsed.tlsCert === undefined ? 'tls-cert' : 'tls-key'} is missing: -tls-cert and -tls-key go together`);
  }
  if (files) options.tls = { mode: 'files', certFile: parsed.tlsCert as string, keyFile: parsed.tlsKey as string };
  else if (parsed.tls === 'auto') options.tls = { mode: 'auto' };
  if (options.clientCa !== undefined && options.tls.mode === 'off') {
    throw new UsageError('flag -client-ca needs TLS: add -tls auto or -tls-cert/-tls-key');
  }
  if (options.tls.mode === 'off' && !isLoopbackAddress(options.host) && !options.allowInsecureRemote) {
    throw new UsageError(
      `refusing to serve plain HTTP on the non-loopback address ${options.host}: the credential would cross the network in clear. ` +
        'Add -tls auto (or -tls-cert/-tls-key), or -allow-insecure-remote to accept the risk (e.g. behind a TLS-terminating proxy)',
    );
  }
}

function applyFlag(options: CliOptions, parsed: Parsed, name: ValueFlag, value: string): void {
  switch (name) {
    case 'port':
      options.port = parsePort(name, value);
      return;
    case 'host':
      if (!value.trim()) throw new UsageError('invalid value "" for flag -host: must be an address');
      options.host = value.trim();
      return;
    case 'data':
      if (!value.trim()) throw new UsageError('invalid value "" for flag -data: must be a directory path');
      options.dataDir = value;
      return;
    case 'mcp':
      options.mcpUrl = value === '' ? undefined : parseHttpUrl(name, value);
      return;
    case 'model':
      if (value !== '' && !/^[^:\s]+:[^\s]+$/.test(value)) {
        throw new UsageError(`invalid value "${value}" for flag -model: must be <providerId>:<modelId>`);
      }
      options.model = value || undefined;
      return;
    case 'swap-port':
      options.swapPort = value === 'off' ? 'off' : parsePort(name, value);
      return;
    case 'allow-origin':
      options.allowOrigins.push(parseOrigin(value));
      return;
    case 'ca-certs':
      if (!value.trim()) throw new UsageError('invalid value "" for flag -ca-certs: must be a PEM file path');
      options.caCerts = value;
      return;
    case 'tls':
      if (value !== 'auto' && value !== 'off') throw new UsageError(`invalid value "${value}" for flag -tls: must be auto or off`);
      parsed.tls = value;
      return;
    case 'tls-cert':
    case 'tls-key':
    case 'client-ca':
      if (!value.trim()) throw new UsageError(`invalid value "" for flag -${name}: must be a PEM file path`);
      if (name === 'tls-cert') parsed.tlsCert = value;
      else if (name === 'tls-key') parsed.tlsKey = value;
      else options.clientCa = value;
      return;
    default:
      return assertNever(name);
  }
}
