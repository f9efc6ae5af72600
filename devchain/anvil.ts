import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface AnvilNode {
  rpcUrl: string;
  port: number;
  chainId: number;
  /** Stops the node and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId?: number;
  /** 0 (default) lets the OS choose a free port; anvil prints the one it bound. */
  port?: number;
}

const WATCHDOG = '"$@" </dev/null & p=$!; trap \'kill $p 2>/dev/null\' TERM INT HUP; read _; kill $p 2>/dev/null; wait $p';

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/**
 * The anvil binary from foundry's platform package. The project depends on the linux-x64 one
 * directly (optional): the registry mirror this project installs from does not carry the other
 * platforms' packages, and `npm ci` refuses a lock file that names packages it cannot resolve.
 */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`;
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    const onPath = spawnSync(process.platform === 'win32' ? 'where' : 'which', ['anvil'], { encoding: 'utf8' });
    if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim().split(/\r?\n/)[0]!;
    throw new Error(
      `anvil binary package ${pkg} is not installed: run \`npm install --no-save ${pkg}\` (or install foundry's anvil and put it on PATH)`,
    );
  }
  return path.join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

/**
 * Starts anvil on 127.0.0.1. Its stdout is read only up to the "Listening on" line (to
 * learn the port) and discarded after that, so nothing it logs reaches our output.
 * The node is killed when this process exits.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  const chainId = options.chainId ?? 56;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--chain-id',
    String(chainId),
    '--hardfork',
    'cancun',
    '--gas-limit',
    '100000000',
  ];
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  // On POSIX a shell watches our stdin pipe: when this process dies in any way (even
  // SIGKILL) the pipe closes and the shell kills anvil, so no node outlives its parent.
  const child =
    process.platform === 'win32'
      ? spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env })
      : spawn('/bin/sh', ['-c', WATCHDOG, 'sh', anvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  try {
    const port = await waitForListening(child, () => stderr);
    return {
      rpcUrl: `http://127.0.0.1:${port}`,
      port,
      chainId,
      async stop() {
        process.removeListener('exit', killOnExit);
        if (child.exitCode === null && child.signalCode === null) {
          if (child.stdin) child.stdin.end();
          else child.kill('SIGTERM');
        }
        await exited;
      },
    };
  } catch (err) {
    process.removeListener('exit', killOnExit);
    child.kill('SIGKILL');
    throw err;
  }
}

function waitForListening(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null): void => {
      reject(new Error(`anvil exited (code ${code}) before listening: ${stderr().trim()}`));
    };
    child.once('exit', onExit);
    child.once('error', reject);
    lines.on('line', (line) => {
      const m = /Listening on [\d.]+:(\d+)/.exec(line);
      if (!m) return;
      child.removeListener('exit', onExit);
      lines.close();
      child.stdout!.resume(); // keep draining so anvil never blocks on a full pipe
      resolve(Number(m[1]));
    });
  });
}
