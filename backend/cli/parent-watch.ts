/**
 * Exit with the desktop app. Started with an IPC channel (child_process) the backend notices its
 * parent going away through `disconnect`; an Electron utility process has no such channel, so it
 * watches its parent process instead: on POSIX an orphan is re-parented (ppid changes), and on
 * every platform the parent's pid stops answering once it is gone, even after kill -9.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function watchParent(onGone: () => void, options: { parentPid?: number; intervalMs?: number } = {}): () => void {
  const parentPid = options.parentPid ?? process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parentPid && isAlive(parentPid)) return;
    clearInterval(timer);
    onGone();
  }, options.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Electron sets `process.parentPort` in a utility process (and only there). */
export function inUtilityProcess(): boolean {
  return (process as { parentPort?: unknown }).parentPort !== undefined;
}
