import { PREVIEW_PATH } from '../../backend/http/preview-api.js';
import { REQUEST_SCHEMAS, type InvokeChannel, type IpcResult, type RequestPayload, type ResponseValues } from './contract.js';

/**
 * The only page allowed to call the main process: the renderer served over app://renderer/, never
 * its artifact preview page (code a model wrote; it has no preload either, this is the second lock).
 */
export function isTrustedSenderUrl(url: string | undefined | null): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'app:' && parsed.host === 'renderer' && parsed.pathname !== PREVIEW_PATH;
  } catch {
    return false;
  }
}

/** Validates a request payload; the error names the field and the rule. */
export function parseRequest<C extends InvokeChannel>(channel: C, payload: unknown): IpcResult<RequestPayload<C>> {
  const schema = REQUEST_SCHEMAS[channel];
  if (!schema) return { ok: false, error: { code: 'invalid_payload', message: `unknown channel ${String(channel)}` } };
  const result = schema.safeParse(payload);
  if (result.success) return { ok: true, value: result.data as RequestPayload<C> };
  const message = result.error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'payload'}: ${issue.message}`)
    .join('; ');
  return { ok: false, error: { code: 'invalid_payload', message: `${channel}: ${message}` } };
}

export type InvokeHandler<C extends InvokeChannel> = (payload: RequestPayload<C>) => ResponseValues[C] | Promise<ResponseValues[C]>;

/**
 * The whole request path in main minus Electron: sender check, payload validation, the handler,
 * and any thrown error turned into `{ok: false}` (never a rejected invoke).
 */
export async function handleRequest<C extends InvokeChannel>(
  channel: C,
  senderUrl: string | undefined,
  payload: unknown,
  handler: InvokeHandler<C>,
): Promise<IpcResult<ResponseValues[C]>> {
  if (!isTrustedSenderUrl(senderUrl)) {
    return {
      ok: false,
      error: { code: 'untrusted_sender', message: `${channel}: refused a request from ${senderUrl ?? 'an unknown frame'}` },
    };
  }
  const parsed = parseRequest(channel, payload);
  if (!parsed.ok) return parsed;
  try {
    return { ok: true, value: await handler(parsed.value) };
  } catch (err) {
    return { ok: false, error: { code: 'failed', message: `${channel}: ${(err as Error).message}` } };
  }
}
