import { promises as fs, readFileSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

/**
 * One backend per data directory: `selfhost/instance.lock` names the running one (pid and, once it
 * listens, its addresses). A second backend on the same directory refuses to start; the desktop app
 * reads the file to connect to a backend that is already running instead of starting another.
 * A lock whose process is gone (crash, kill -9) is stale and taken over.
 */
export interface InstanceInfo {
  pid: number;
  /** null while the backend is still starting. */
  url: string | null;
  swap_url: string | null;
  started_at: string;
}

export function instanceLockPath(dataDir: string): string {
  return path.join(dataDir, 'selfhost', 'instance.lock');
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseInstance(text: string): InstanceInfo | null {
  try {
    const value = JSON.parse(text) as Partial<InstanceInfo>;
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0) return null;
    return {
      pid: value.pid as number,
      url: typeof value.url === 'string' ? value.url : null,
      swap_url: typeof value.swap_url === 'string' ? value.swap_url : null,
      started_at: typeof value.started_at === 'string' ? value.started_at : '',
    };
  } catch {
    return null;
  }
}

/** The backend recorded in the lock when its process is alive, else null (no lock, or stale). */
export async function readLiveInstance(dataDir: string): Promise<InstanceInfo | null> {
  const text = await fs.readFile(instanceLockPath(dataDir), 'utf8').catch(() => null);
  const info = text === null ? null : parseInstance(text);
  return info && info.pid !== process.pid && isProcessAlive(info.pid) ? info : null;
}

export class InstanceLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: InstanceInfo,
  ) {
    super(
      `another backend is already running on the data directory ${dataDir} (pid ${holder.pid}, ${holder.url ?? 'still starting'}); ` +
        'stop it first or use another -data directory',
    );
  }
}

/** A lock file being written by a racing starter is empty for a moment; only an old unreadable one is stale. */
const UNREADABLE_GRACE_MS = 5000;
const TAKEOVER_STALE_MS = 10_000;

type Verdict = { kind: 'live'; holder: InstanceInfo } | { kind: 'stale'; text: string } | { kind: 'wait' };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function judge(file: string): Promise<Verdict> {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (text === null) return { kind: 'wait' }; // removed meanwhile: try again
  const holder = parseInstance(text);
  if (holder && holder.pid !== process.pid && isProcessAlive(holder.pid)) return { kind: 'live', holder };
  if (!holder) {
    const mtime = await fs.stat(file).then(
      (st) => st.mtimeMs,
      () => null,
    );
    if (mtime === null || Date.now() - mtime < UNREADABLE_GRACE_MS) return { kind: 'wait' };
  }
  return { kind: 'stale', text };
}

/**
 * Removes a stale lock under `instance.lock.takeover`, created with O_EXCL: without it two starters
 * that both judged the same stale file could each remove it, the second one removing the fresh lock
 * the first had just created, and both would run. A takeover file left by a starter that died in
 * those few milliseconds is itself stale after TAKEOVER_STALE_MS.
 */
async function takeOver(file: string, staleText: string): Promise<void> {
  const guard = `${file}.takeover`;
  try {
    await fs.writeFile(guard, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const mtime = await fs.stat(guard).then(
      (st) => st.mtimeMs,
      () => null,
    );
    if (mtime !== null && Date.now() - mtime > TAKEOVER_STALE_MS) await fs.rm(guard, { force: true });
    await pause(20);
    return;
  }
  try {
    // Judged again under the guard: another starter may have replaced it meanwhile.
    if ((await fs.readFile(file, 'utf8').catch(() => null)) === staleText) await fs.rm(file, { force: true });
  } finally {
    await fs.rm(guard, { force: true });
  }
}

export class InstanceLock {
  private released = false;

  private constructor(
    readonly file: string,
    private info: InstanceInfo,
  ) {
    process.once('exit', () => this.release());
  }

  /** Takes the lock or throws InstanceLockedError naming the running backend. */
  static async acquire(dataDir: string): Promise<InstanceLock> {
    const file = instanceLockPath(dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const info: InstanceInfo = { pid: process.pid, url: null, swap_url: null, started_at: new Date().toISOString() };
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        // O_EXCL: of two backends starting at once, exactly one creates the file.
        await fs.writeFile(file, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o600 });
        return new InstanceLock(file, info);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const verdict = await judge(file);
      if (verdict.kind === 'live') throw new InstanceLockedError(dataDir, verdict.holder);
      if (verdict.kind === 'stale') await takeOver(file, verdict.text);
      else await pause(50);
    }
    throw new Error(`cannot take the lock ${file}: it keeps changing`);
  }

  get current(): InstanceInfo {
    return this.info;
  }

  /** Records the addresses once the backend listens. */
  async update(addresses: { url: string; swapUrl: string | null }): Promise<void> {
    if (this.released) return;
    this.info = { ...this.info, url: addresses.url, swap_url: addresses.swapUrl };
    // Temporary file + rename: a reader (the app looking for a running backend) sees the old or the new
    // text. Writing in place let a concurrent read see the old text followed by the tail of the new one.
    await writeFileAtomic(this.file, `${JSON.stringify(this.info)}\n`, { mode: 0o600 });
  }

  /** Removes the file if it is still ours (runs at process exit, also after process.exit()). */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      const onDisk = parseInstance(readFileSync(this.file, 'utf8'));
      if (onDisk?.pid === process.pid && statSync(this.file).isFile()) unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}
