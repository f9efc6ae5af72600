import { createServer } from 'node:net';

/** True when `port` can be bound on `host` right now (the backend may still lose a race for it). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The first of `candidates` that is free, else 0 (the backend picks any free port). */
export async function choosePort(candidates: readonly number[], host = '127.0.0.1'): Promise<number> {
  for (const port of candidates) {
    if (port > 0 && (await isPortFree(port, host))) return port;
  }
  return 0;
}
