/**
 * Reads a node's answer to a JSON-RPC batch the way hosted nodes give it: results, a refusal of
 * the batch's size (geth's single -32600 "batch too large", HTTP 413, an HTTP 400 naming the batch),
 * a rate limit (HTTP 429/503, -32005, "rate limit" messages) or a plain failure.
 */
export type Answer =
  | { kind: 'ok'; results: unknown[] }
  | { kind: 'too_large'; said: string }
  | { kind: 'rate_limited'; said: string; retryAfterMs?: number }
  | { kind: 'failed'; said: string };

interface Item {
  id?: number;
  result?: unknown;
  error?: { code?: number; message?: string };
}

const BATCH_TOO_LARGE = /batch (is )?too (large|big)|batch (size|limit)|too many (requests|calls) in (the )?batch|exceeds? .*batch/i;
const RATE_LIMIT = /rate.?limit|too many requests|request limit|capacity exceeded|throttl/i;
/** -32005 is also "query returned more than N results" (eth_getLogs), which is no rate limit. */
const NOT_RATE = /returned more than|results/i;

const short = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…` : s).replace(/\s+/g, ' ').trim();

function isRateLimit(e: { code?: number; message?: string }): boolean {
  const msg = e.message ?? '';
  return (e.code === -32005 && !NOT_RATE.test(msg)) || e.code === 429 || RATE_LIMIT.test(msg);
}

/** Retry-After: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function classifyAnswer(status: number, text: string, calls: { method: string; optional?: boolean }[], firstId: number): Answer {
  if (status === 413) return { kind: 'too_large', said: `answered HTTP 413 (${short(text) || 'payload too large'})` };
  if (status === 429 || status === 503) return { kind: 'rate_limited', said: `answered HTTP ${status}${text ? ` (${short(text)})` : ''}` };
  if (status === 400 && BATCH_TOO_LARGE.test(text)) return { kind: 'too_large', said: `answered HTTP 400 (${short(text)})` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) return { kind: 'failed', said: `answered HTTP ${status}${text ? ` (${short(text)})` : ''}` };
    return { kind: 'failed', said: 'sent a body that is not JSON' };
  }
  if (!Array.isArray(json)) {
    // One error object for the whole batch: geth's batch cap, a rate limit, or a refusal.
    const e = (json as Item | null)?.error;
    if (e && calls.length > 1 && BATCH_TOO_LARGE.test(e.message ?? ''))
      return { kind: 'too_large', said: `answered ${e.code ?? ''} "${short(e.message ?? '')}"` };
    if (e && isRateLimit(e)) return { kind: 'rate_limited', said: `answered ${e.code ?? ''} "${short(e.message ?? '')}"` };
    if (e && calls.length > 1) return { kind: 'failed', said: `refused the batch: ${e.code ?? ''} "${short(e.message ?? '')}"` };
    if (status < 200 || status >= 300) return { kind: 'failed', said: `answered HTTP ${status}` };
  }
  const list = (Array.isArray(json) ? json : [json]) as Item[];
  const byId = new Map<number | undefined, Item>();
  for (const item of list) byId.set(item?.id, item);
  const results: unknown[] = [];
  for (let i = 0; i < calls.length; i++) {
    const item = byId.get(firstId + i);
    if (!item) return { kind: 'failed', said: `left ${calls[i].method} unanswered` };
    if (item.error) {
      if (isRateLimit(item.error))
        return { kind: 'rate_limited', said: `answered ${calls[i].method} with "${short(item.error.message ?? '')}"` };
      if (BATCH_TOO_LARGE.test(item.error.message ?? '') && calls.length > 1)
        return { kind: 'too_large', said: `answered "${short(item.error.message ?? '')}"` };
      if (calls[i].optional) {
        results.push('0x');
        continue;
      }
      return { kind: 'failed', said: `failed ${calls[i].method}: ${item.error.message ?? 'unknown error'}` };
    }
    results.push(item.result);
  }
  return { kind: 'ok', results };
}
