import WebSocket, { type ClientOptions } from 'ws';

export interface WsOpen {
  socket: WebSocket;
  messages: any[];
  next(predicate?: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a WebSocket; resolves once open, or rejects with the HTTP status of a refused upgrade. */
export function openWs(url: string, headers: Record<string, string> = {}, options: ClientOptions = {}): Promise<WsOpen> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { ...options, headers });
    const messages: any[] = [];
    const waiters: { predicate: (m: any) => boolean; resolve: (m: any) => void }[] = [];
    let seen = 0;
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      messages.push(msg);
      for (const w of [...waiters]) {
        if (w.predicate(msg)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    });
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      socket.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    socket.on('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
    });
    socket.on('error', (err) => reject(err));
    socket.on('open', () => {
      resolve({
        socket,
        messages,
        closed,
        next(predicate = () => true, timeoutMs = 5000) {
          for (let i = seen; i < messages.length; i++) {
            if (predicate(messages[i])) {
              seen = i + 1;
              return Promise.resolve(messages[i]);
            }
          }
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error('timed out waiting for a WebSocket message')), timeoutMs);
            waiters.push({
              predicate,
              resolve: (m) => {
                clearTimeout(timer);
                seen = messages.length;
                res(m);
              },
            });
          });
        },
      });
    });
  });
}
