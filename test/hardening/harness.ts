import http from 'node:http';
import type { BackendProcess } from '../helpers/backend-process.js';

/** The swap listener's port, from the documented `swap builder listening on …` line. */
export async function swapListener(proc: BackendProcess): Promise<{ url: string; port: number }> {
  const m = await proc.waitForLine(/^swap builder listening on (http:\/\/127\.0\.0\.1:(\d+))$/);
  return { url: m[1], port: Number(m[2]) };
}

export { send, type Reply, type SendOptions } from '../helpers/raw-http.js';
import { send, type Reply, type SendOptions } from '../helpers/raw-http.js';

export function jsonPost(port: number, path: string, body: unknown, extra: SendOptions = {}): Promise<Reply> {
  return send(port, {
    ...extra,
    method: extra.method ?? 'POST',
    path,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(extra.headers ?? {}) },
  });
}

/** True when `json` is the documented error envelope `{"error":{"code","message","field"?}}`. */
export function isEnvelope(json: unknown): boolean {
  if (typeof json !== 'object' || json === null) return false;
  const keys = Object.keys(json);
  const error = (json as { error?: unknown }).error as Record<string, unknown> | undefined;
  if (keys.length !== 1 || typeof error !== 'object' || error === null) return false;
  const extra = Object.keys(error).filter((k) => k !== 'code' && k !== 'message' && k !== 'field');
  return (
    extra.length === 0 &&
    typeof error.code === 'string' &&
    /^[a-z][a-z0-9_]*$/.test(error.code) &&
    typeof error.message === 'string' &&
    error.message.length > 0 &&
    (error.field === undefined || typeof error.field === 'string')
  );
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function keepAliveAgent(maxSockets = 16): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}
