import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface SendOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Address to connect to (default 127.0.0.1); `::ffff:127.0.0.1` and `::1` work too. */
  connect?: string;
  /** Source address of the connection (e.g. 127.0.0.2: every 127/8 address is local on Linux). */
  localAddress?: string;
  agent?: http.Agent;
  timeoutMs?: number;
}

/**
 * One raw HTTP request over node:http (keep-alive through `agent`), with any Host, Origin,
 * body bytes or source address a hostile client could choose. Rejects on a hang.
 */
export function send(port: number, options: SendOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...(options.headers ?? {}) };
    const setHost = !Object.keys(headers).some((h) => h.toLowerCase() === 'host');
    if (setHost) headers.host = `127.0.0.1:${port}`;
    const framed = Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()));
    if (options.body !== undefined && !framed) {
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const req = http.request(
      {
        host: options.connect ?? '127.0.0.1',
        family: options.connect?.includes(':') ? 6 : undefined,
        localAddress: options.localAddress,
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers,
        setHost: false,
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms: ${options.method ?? 'GET'} ${options.path}`));
    }, options.timeoutMs ?? 10_000);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
