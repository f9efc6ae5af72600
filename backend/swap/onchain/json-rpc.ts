/**
 * A JSON-RPC client that lives with hosted nodes: batches are split to the node's batch cap and
 * sent with bounded parallelism; a "batch too large" answer halves the cap for this node and it is
 * remembered; 429 / 503 / rate-limit errors are retried with backoff honouring Retry-After, within
 * the call's deadline. Errors name the node's host and what it said, never the URL (RPC URLs can
 * carry API keys).
 */
import { classifyAnswer, retryAfterMs, type Answer } from './rpc-answers.js';

export class RpcError extends Error {}

/** The connection was closed under a request (keep-alive race): worth one more try. */
class ConnectionReset extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }
}

export interface RpcCall {
  method: string;
  params: unknown[];
  /** A call some contracts do not have (a V2 fork's pair): its failure answers '0x' instead of failing the batch. */
  optional?: boolean;
}

export interface RpcOptions {
  /** Calls per HTTP request (default 100); halved and remembered when the node refuses a batch. */
  maxBatch?: number;
  /** HTTP requests in flight at once for one batch() (default 4). */
  maxInFlight?: number;
  /** The deadline of one batch() including retries, in ms (default 10 s). */
  timeoutMs?: number;
}

let nextId = 1;

export function describeNode(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured node';
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', stop, { once: true });
  });

export class JsonRpcClient {
  /** The batch cap currently used for this node (shrinks when the node refuses a batch). */
  batchLimit: number;
  readonly maxInFlight: number;
  readonly timeoutMs: number;
  /** HTTP requests sent (each one a round trip to the node), retries included. */
  requests = 0;
  private readonly node: string;

  constructor(
    readonly url: string,
    options: number | RpcOptions = {},
  ) {
    const o = typeof options === 'number' ? { timeoutMs: options } : options;
    this.batchLimit = Math.max(1, o.maxBatch ?? 100);
    this.maxInFlight = Math.max(1, o.maxInFlight ?? 4);
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.node = describeNode(url);
  }

  async call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
    const [result] = await this.batch<T>([{ method, params }], signal);
    return result;
  }

  /** Sends all calls (split to the node's cap); results in call order. An error in any call throws. */
  async batch<T = unknown>(calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    if (calls.length === 0) return [];
    const deadline = Date.now() + this.timeoutMs;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const out = new Array<T>(calls.length);
    const chunks: { start: number; calls: RpcCall[] }[] = [];
    for (let i = 0; i < calls.length; i += this.batchLimit) chunks.push({ start: i, calls: calls.slice(i, i + this.batchLimit) });
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++];
        const results = await this.sendSplitting<T>(chunk.calls, deadline, combined, timeout);
        results.forEach((r, i) => (out[chunk.start + i] = r));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.maxInFlight, chunks.length) }, worker));
    return out;
  }

  /** Sends one chunk; when the node refuses its size, halves the cap and sends the halves. */
  private async sendSplitting<T>(calls: RpcCall[], deadline: number, signal: AbortSignal, timeout: AbortSignal): Promise<T[]> {
    if (calls.length > this.batchLimit) {
      const parts: RpcCall[][] = [];
      for (let i = 0; i < calls.length; i += this.batchLimit) parts.push(calls.slice(i, i + this.batchLimit));
      const answers = await Promise.all(parts.map((p) => this.sendSplitting<T>(p, deadline, signal, timeout)));
      return answers.flat();
    }
    const answer = await this.sendWithRetry(calls, deadline, signal, timeout);
    if (answer.kind === 'too_large') {
      if (calls.length === 1) throw new RpcError(`the RPC node ${this.node} refused even a single call: ${answer.said}`);
      this.batchLimit = Math.min(this.batchLimit, Math.max(1, Math.floor(calls.length / 2)));
      return this.sendSplitting<T>(calls, deadline, signal, timeout);
    }
    return (answer as { results: unknown[] }).results as T[];
  }

  private async sendWithRetry(calls: RpcCall[], deadline: number, signal: AbortSignal, timeout: AbortSignal): Promise<Answer> {
    let resets = 0;
    for (let attempt = 0; ; attempt++) {
      let answer: Answer;
      try {
        answer = await this.send(calls, signal, timeout);
      } catch (err) {
        // A kept-alive connection the node closed as we reused it: reads are idempotent, send again.
        if (!(err instanceof ConnectionReset) || ++resets > 2 || signal.aborted) throw err instanceof ConnectionReset ? err.error : err;
        continue;
      }
      if (answer.kind !== 'rate_limited') return answer;
      // Backoff doubles from 100 ms (with jitter) unless the node says how long to wait.
      const wait = answer.retryAfterMs ?? Math.round(100 * 2 ** Math.min(attempt, 6) * (0.75 + Math.random() / 2));
      if (Date.now() + wait >= deadline) {
        throw new RpcError(
          `the RPC node ${this.node} ${answer.said}` +
            (answer.retryAfterMs !== undefined ? ` (retry after ${Math.ceil(wait / 1000)} s)` : '') +
            ` and did not answer within the ${this.timeoutMs} ms deadline after ${attempt + 1} attempts`,
        );
      }
      try {
        await sleep(wait, signal);
      } catch {
        throw this.abortError(timeout);
      }
    }
  }

  private abortError(timeout: AbortSignal): RpcError {
    return new RpcError(
      timeout.aborted
        ? `the RPC node ${this.node} did not answer within ${this.timeoutMs} ms`
        : `the request to the RPC node ${this.node} was cancelled`,
    );
  }

  private async send(calls: RpcCall[], signal: AbortSignal, timeout: AbortSignal): Promise<Answer> {
    const first = nextId;
    nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    let response: Response;
    let text: string;
    this.requests++;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
      text = await response.text();
    } catch (err) {
      if (signal.aborted) throw this.abortError(timeout);
      const e = err as Error;
      const why = e.cause instanceof Error ? e.cause.message : e.message;
      const error = new RpcError(`the RPC node ${this.node} is unreachable: ${why}`);
      if (/other side closed|ECONNRESET|socket hang up|EPIPE/i.test(`${why} ${(e.cause as { code?: string })?.code ?? ''}`))
        throw new ConnectionReset(error);
      throw error;
    }
    const answer = classifyAnswer(response.status, text, calls, first);
    if (answer.kind === 'rate_limited' && answer.retryAfterMs === undefined)
      answer.retryAfterMs = retryAfterMs(response.headers.get('retry-after'));
    if (answer.kind === 'failed') throw new RpcError(`the RPC node ${this.node} ${answer.said}`);
    return answer;
  }
}
