import { readLiveInstance } from '../../backend/data/instance-lock.js';

/** A backend that already runs for the app's data directory, found through its instance lock. */
export interface RunningBackend {
  pid: number;
  url: string;
  swapUrl: string | null;
  /** Still there and answering /health. */
  isAlive(): Promise<boolean>;
}

async function healthy(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The backend may listen on all interfaces; the app reaches it over the loopback. */
function loopbackUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = '127.0.0.1';
  return parsed.origin;
}

/**
 * The backend named by `<dataDir>/selfhost/instance.lock` when its process is alive and it answers
 * /health; null otherwise (none, a stale lock, or one still starting: the app then starts its own,
 * which either takes over a stale lock or exits naming the running one, and the next try finds it).
 */
export async function findRunningBackend(dataDir: string): Promise<RunningBackend | null> {
  const info = await readLiveInstance(dataDir);
  if (!info?.url) return null;
  const url = loopbackUrl(info.url);
  if (!(await healthy(url))) return null;
  return {
    pid: info.pid,
    url,
    swapUrl: info.swap_url,
    isAlive: async () => (await healthy(url)) || (await healthy(url)),
  };
}
