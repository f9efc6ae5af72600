// A stdio tool server must not outlive the backend, even when the backend is killed with SIGKILL
// and gets no chance to clean up. The server (and whatever it spawns, e.g. `npx` → `node`) runs in
// its own process group under a tiny POSIX shell that watches the backend's pid once a second and
// takes the whole group down when the backend is gone. The shell costs ~1 ms to start and copies no
// data: the server inherits the pipes directly. Windows has no such guard (see the README).

/**
 * `sh -c GUARD sh <backend pid> <command> [args…]`. Exit code is the server's own; 127 means the
 * command was not found, 126 that it could not be executed.
 */
const GUARD_SCRIPT = [
  'parent=$1; shift',
  // A background job of a non-interactive shell reads /dev/null unless stdin is redirected explicitly.
  'exec 3<&0',
  '"$@" <&3 3<&- &',
  'child=$!',
  'exec 3<&- 0</dev/null',
  '(',
  '  while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1; done',
  '  if ! kill -0 "$parent" 2>/dev/null; then trap "" TERM; kill -TERM 0; sleep 2; kill -KILL 0; fi',
  ') </dev/null >/dev/null 2>&1 &',
  'watcher=$!',
  'wait "$child"; code=$?',
  'kill "$watcher" 2>/dev/null',
  // Leftover grandchildren of a server that exited go too; the shell itself ignores this TERM.
  'trap "" TERM; kill -TERM 0 2>/dev/null',
  'exit $code',
].join('\n');

export interface GuardedCommand {
  command: string;
  args: string[];
  /** True when the spawned process leads its own process group (kill `-pid` to stop everything). */
  group: boolean;
}

/** The command line that runs `command args` under the parent-death guard (POSIX), or as is (Windows). */
export function guardedCommand(command: string, args: string[], parentPid = process.pid): GuardedCommand {
  if (process.platform === 'win32') return { command, args, group: false };
  return { command: '/bin/sh', args: ['-c', GUARD_SCRIPT, 'sh', String(parentPid), command, ...args], group: true };
}

/** Signals the whole group (or the single process); never throws. */
export function signalGroup(pid: number | undefined, group: boolean, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // already gone
  }
}
