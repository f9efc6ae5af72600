/**
 * A minimal JSON-RPC client that sends batches (one HTTP request for many calls), with a timeout
 * and the caller's abort signal. Errors name the node and what failed, never a secret (RPC URLs
 * can carry API keys, so only the host is named).
 */
export class RpcError extends Error {}

export interface RpcCall {
  method: string;
  params: unknown[];
}

let nextId = 1;

export function describeNode(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured node';
  }
}

export class JsonRpcClient {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
    const [result] = await this.batch<T>([{ method, params }], signal);
    return result;
  }

  /** Sends all calls in one request; results in call order. An error in any call throws. */
  async batch<T = unknown>(calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    if (calls.length === 0) return [];
    const first = nextId;
    nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const node = describeNode(this.url);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: combined,
      });
    } catch (err) {
      if (timeout.aborted) throw new RpcError(`the RPC node ${node} did not answer within ${this.timeoutMs} ms`);
      throw new RpcError(
        `the RPC node ${node} is unreachable: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
      );
    }
    if (!response.ok) throw new RpcError(`the RPC node ${node} answered HTTP ${response.status}`);
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      throw new RpcError(`the RPC node ${node} sent a body that is not JSON`);
    }
    const list = Array.isArray(json) ? json : [json];
    const byId = new Map<number, { result?: unknown; error?: { message?: string } }>();
    for (const item of list as { id: number; result?: unknown; error?: { message?: string } }[]) byId.set(item?.id, item);
    return calls.map((c, i) => {
      const item = byId.get(first + i);
      if (!item) throw new RpcError(`the RPC node ${node} left ${c.method} unanswered`);
      if (item.error) throw new RpcError(`the RPC node ${node} failed ${c.method}: ${item.error.message ?? 'unknown error'}`);
      return item.result as T;
    });
  }
}
