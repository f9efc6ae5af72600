import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { rawRequest, tempDir, type BackendProcess } from '../helpers/backend-process.js';

/** A data directory with files written before the backend starts (hand-written fixtures). */
export function seededDataDir(files: Record<string, string>): string {
  const dir = path.join(tempDir('svc-config-'), 'data');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

export interface ConfigEvent {
  type: string;
  resource?: string;
  id?: string | null;
}

/** A WebSocket client that records every message and lets a test await a specific one. */
export class EventClient {
  readonly messages: ConfigEvent[] = [];
  private waiters: { match: (m: ConfigEvent) => boolean; from: number; resolve: (m: ConfigEvent) => void }[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as ConfigEvent;
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => !(w.match(msg) && (w.resolve(msg), true)));
    });
  }

  static async open(baseUrl: string, credential: string): Promise<EventClient> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?service_credential=${encodeURIComponent(credential)}`);
    const client = new EventClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await client.next((m) => m.type === 'hello');
    return client;
  }

  /** Index to pass as `from`, so only messages after an action count. */
  get mark(): number {
    return this.messages.length;
  }

  next(match: (m: ConfigEvent) => boolean, from = 0, timeoutMs = 5000): Promise<ConfigEvent> {
    const seen = this.messages.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching WebSocket message; got ${JSON.stringify(this.messages)}`)), timeoutMs);
      this.waiters.push({
        match,
        from,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Resolves with the config.changed event for resource/id sent after `from`. */
  changed(resource: string, id: string | null, from: number): Promise<ConfigEvent> {
    return this.next((m) => m.type === 'config.changed' && m.resource === resource && m.id === id, from);
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * Sends the path exactly as written: fetch's URL parser would turn `%2E%2E` into `..` and
 * resolve it before the request leaves, so escape attempts never reach the server that way.
 */
export async function rawCall(
  proc: BackendProcess,
  credential: string,
  method: string,
  rawPath: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await rawRequest(proc.port, { method, path: rawPath, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: res.json };
}
