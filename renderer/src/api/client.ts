import type { ErrorBody } from '../../../backend/http/errors-api.js';

/** A failed call: an HTTP error envelope, or the backend not answering at all. */
export class ApiFailure extends Error {
  constructor(
    readonly kind: 'http' | 'network',
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Seconds from `Retry-After` on a 429. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly credential: string | null;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  /** PUT with `If-None-Match: *`: creates, never replaces (409 `already_exists`). */
  create<T>(path: string, body: unknown): Promise<T>;
  del<T = unknown>(path: string): Promise<T>;
}

export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/** Calls any JSON HTTP API (the assistant backend or the swap listener) and maps failures. */
export async function requestJson<T>(url: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiFailure('network', 0, 'unreachable', (err as Error).message || 'network error');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the status and text speak for themselves
  }
  if (res.ok) return parsed as T;
  const envelope = (parsed as Partial<ErrorBody> | undefined)?.error;
  const retry = Number(res.headers.get('Retry-After'));
  throw new ApiFailure(
    'http',
    res.status,
    envelope?.code ?? `http_${res.status}`,
    envelope?.message ?? (text.slice(0, 200) || res.statusText),
    envelope?.field,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}

/**
 * The backend client: the credential on every call, a 401 reported to the session, and whether the
 * backend answered at all reported to `onReachable` (for the offline banner).
 */
export function createApiClient(
  baseUrl: string,
  credential: string | null,
  onUnauthorized: () => void,
  onReachable: (reachable: boolean, startedAt: number) => void = () => undefined,
): ApiClient {
  const call = async <T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> => {
    const headers: Record<string, string> = { ...extra, ...(credential ? { Authorization: `Bearer ${credential}` } : {}) };
    const startedAt = performance.now();
    try {
      const value = await requestJson<T>(joinUrl(baseUrl, path), method, body, headers);
      onReachable(true, startedAt);
      return value;
    } catch (err) {
      onReachable(!(err instanceof ApiFailure && err.kind === 'network'), startedAt);
      if (err instanceof ApiFailure && err.status === 401 && path.startsWith('/api/') && !path.startsWith('/api/pairing/')) {
        onUnauthorized();
      }
      throw err;
    }
  };
  return {
    baseUrl,
    credential,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
    create: (path, body) => call('PUT', path, body, { 'If-None-Match': '*' }),
    del: (path) => call('DELETE', path),
  };
}
