import type { ErrorBody } from '../../../backend/http/errors-api.js';
import { ApiFailure, joinUrl, type ApiClient } from './client';

/**
 * POSTs `body` raw with `X-Filename` (attachments, knowledge-base files). XMLHttpRequest: fetch
 * reports no upload progress. Resolves with the JSON answer when the status is `expect` (any 2xx
 * when not given); failures are ApiFailures carrying the backend's code and field.
 */
export function uploadRaw<T>(
  api: ApiClient,
  path: string,
  body: Blob,
  opts: { name: string; contentType: string; onProgress(fraction: number): void; expect?: number },
): { done: Promise<T>; abort(): void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<T>((resolve, reject) => {
    xhr.open('POST', joinUrl(api.baseUrl, path));
    if (api.credential) xhr.setRequestHeader('Authorization', `Bearer ${api.credential}`);
    xhr.setRequestHeader('X-Filename', encodeURIComponent(opts.name));
    xhr.setRequestHeader('Content-Type', opts.contentType);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) opts.onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let answer: unknown;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        answer = undefined;
      }
      const ok = opts.expect === undefined ? xhr.status >= 200 && xhr.status < 300 : xhr.status === opts.expect;
      if (ok) return resolve(answer as T);
      const envelope = (answer as Partial<ErrorBody> | undefined)?.error;
      reject(
        new ApiFailure('http', xhr.status, envelope?.code ?? `http_${xhr.status}`, envelope?.message ?? xhr.statusText, envelope?.field),
      );
    };
    xhr.onerror = () => reject(new ApiFailure('network', 0, 'unreachable', 'network error'));
    xhr.onabort = () => reject(new ApiFailure('network', 0, 'aborted', 'upload cancelled'));
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}

/** Stored bytes (an attachment, a knowledge-base file) with the credential, which an <img src> or a plain link could not send. */
export async function fetchBytes(api: ApiClient, path: string): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(joinUrl(api.baseUrl, path), { headers: api.credential ? { Authorization: `Bearer ${api.credential}` } : {} });
  } catch (err) {
    throw new ApiFailure('network', 0, 'unreachable', (err as Error).message || 'network error');
  }
  if (!res.ok) throw new ApiFailure('http', res.status, `http_${res.status}`, res.statusText);
  return res.blob();
}
