import { spawn } from 'node:child_process';
import { childEnv } from './child-env.js';

// DESIGN 9 `-shell-env`: an app started from the Finder or a desktop launcher gets a bare PATH
// (/usr/bin:/bin:…), not the one the user's shell builds (Homebrew, nvm, volta), so `npx` is "not
// found". The login shell is asked once, as the first tool server starts, and its PATH is used for
// every tool server from then on.

export const SHELL_TIMEOUT_MS = 3000;
const MARK = '__SERVICE_SHELL_PATH__';

export interface ShellPathResult {
  /** The login shell's PATH, or undefined when it could not be read (the backend's own is kept). */
  path?: string;
  /** Why it could not be read, for the log. */
  problem?: string;
}

/**
 * Runs `$SHELL -ilc` with markers around the output (profiles print banners and noise) and takes
 * PATH from `env` inside them (not `$PATH`: fish would join its list with spaces).
 */
export function readLoginShellPath(env: NodeJS.ProcessEnv, timeoutMs = SHELL_TIMEOUT_MS): Promise<ShellPathResult> {
  const shell = env.SHELL || '/bin/sh';
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const done = (result: ShellPathResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    // DESIGN 16: the shell runs the user's profiles (someone else's code, like a tool server), so it
    // gets the tool servers' allow-listed environment, never provider keys or the bootstrap secret.
    // oh-my-zsh and friends would otherwise offer updates or wait for input.
    const child = spawn(shell, ['-ilc', `printf '%s' '${MARK}'; env; printf '%s' '${MARK}'`], {
      env: { ...childEnv(env, undefined), DISABLE_AUTO_UPDATE: 'true', ZSH_TMUX_AUTOSTARTED: 'true' },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: process.platform !== 'win32',
    });
    const timer = setTimeout(() => {
      try {
        process.kill(process.platform !== 'win32' && child.pid ? -child.pid : (child.pid ?? 0), 'SIGKILL');
      } catch {
        // gone already
      }
      done({ problem: `the login shell ${shell} did not answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (out += chunk));
    child.once('error', (err) => done({ problem: `could not run the login shell ${shell}: ${err.message}` }));
    child.once('close', (code) => {
      const start = out.indexOf(MARK);
      const end = out.lastIndexOf(MARK);
      if (start === -1 || end <= start)
        return done({ problem: `the login shell ${shell} exited with code ${code} without printing its PATH` });
      const line = out
        .slice(start + MARK.length, end)
        .split('\n')
        .find((l) => l.startsWith('PATH='));
      const path = line?.slice('PATH='.length).trim();
      done(path ? { path } : { problem: `the login shell ${shell} has no PATH` });
    });
  });
}

/** Reads the login shell's PATH at most once per process, on first use. */
export class ShellPath {
  private reading?: Promise<string | undefined>;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (line: string) => void,
    private readonly timeoutMs = SHELL_TIMEOUT_MS,
  ) {}

  get(): Promise<string | undefined> {
    this.reading ??= readLoginShellPath(this.env, this.timeoutMs).then(({ path, problem }) => {
      if (path) this.log(`tool servers use the login shell's PATH (${path.split(':').length} folders)`);
      else this.log(`warning: ${problem}; tool servers use the service's own PATH`);
      return path;
    });
    return this.reading;
  }
}
