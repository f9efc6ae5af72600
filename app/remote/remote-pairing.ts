import http from 'node:http';
import type { PairedResponse, PairingStatus } from '../../backend/pairing/pairing-api.js';
import type { PairFailureReason } from './remote-api.js';
import { PinMismatchError, pinnedRequest, type Pin } from './cert-pinning.js';
import { connectTarget } from './remote-probe.js';

type Reply<T> = { status: number; body: T; headers: Record<string, string | string[] | undefined> };

export class PairFailure extends Error {
  constructor(
    readonly reason: PairFailureReason,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** A plain-http request (loopback, or insecure confirmed by the user): nothing to pin. */
function plainRequest<T>(origin: string, method: string, pathname: string, body?: unknown): Promise<Reply<T>> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      ...connectTarget(origin),
      method,
      path: pathname,
      agent: false,
      headers: text ? { 'content-type': 'application/json' } : {},
    });
    req.on('response', (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => {
        let parsed: unknown = data;
        try {
          parsed = JSON.parse(data);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Sends over the pinned certificate when there is one; a different certificate never gets the code. */
function send<T>(origin: string, fingerprint: string | null, method: string, pathname: string, body?: unknown): Promise<Reply<T>> {
  if (fingerprint === null) return plainRequest<T>(origin, method, pathname, body);
  const pin: Pin = { origin, fingerprint, pinned_at: new Date().toISOString() };
  return pinnedRequest<T>(pin, method, pathname, { body });
}

const errorMessage = (body: unknown) =>
  (body as { error?: { message?: string } } | undefined)?.error?.message ?? (typeof body === 'string' ? body.slice(0, 200) : 'no message');

export interface PairInput {
  origin: string;
  /** The fingerprint the user compared (null over plain http). */
  fingerprint: string | null;
  /** The 6-digit invite code from a paired device, or the pairing code from the log of an unpaired backend. */
  code: string;
  deviceName: string;
}

export interface Paired extends PairedResponse {
  status: PairingStatus;
}

/**
 * Pairs this app as a new device: a paired backend is joined with an invite (DESIGN 11), an
 * unpaired one claimed with its pairing code. Every request goes over the certificate the user
 * compared: if it changed since the probe, nothing is sent and `certificate_changed` is reported.
 */
export async function pairRemote(input: PairInput): Promise<Paired> {
  try {
    const status = await send<PairingStatus>(input.origin, input.fingerprint, 'GET', '/api/pairing/status');
    if (status.status !== 200) throw new PairFailure('refused', `${input.origin}: the pairing status answered HTTP ${status.status}`);
    const bound = status.body.bound;
    const reply = bound
      ? await send<PairedResponse>(input.origin, input.fingerprint, 'POST', '/api/pairing/join', {
          invite_code: input.code,
          device_name: input.deviceName,
        })
      : await send<PairedResponse>(input.origin, input.fingerprint, 'POST', '/api/pairing/claim', {
          pairing_code: input.code,
          display_name: input.deviceName,
        });
    if (reply.status === 200) return { ...reply.body, status: status.body };
    throw failureOf(reply, bound);
  } catch (err) {
    if (err instanceof PairFailure) throw err;
    if (err instanceof PinMismatchError) {
      throw new PairFailure('certificate_changed', `${err.message} Nothing was sent; compare the fingerprints again.`);
    }
    throw new PairFailure('unreachable', `${input.origin}: ${(err as Error).message}`);
  }
}

function failureOf(reply: Reply<unknown>, bound: boolean): PairFailure {
  const message = errorMessage(reply.body);
  switch (reply.status) {
    case 401:
      return new PairFailure(
        'wrong_code',
        bound
          ? 'The invite code is wrong or has expired (10 minutes, one use): create a new one on a paired device (Connection → Add a device).'
          : 'The pairing code is wrong or has expired: read the current "pairing code:" line in the backend log.',
      );
    case 429: {
      const retry = Number(reply.headers['retry-after']);
      return new PairFailure('throttled', `Too many wrong codes: ${message}`, Number.isFinite(retry) ? retry : undefined);
    }
    case 409:
      return new PairFailure('already_paired', 'The backend was paired meanwhile: ask a paired device for an invite code and try again.');
    default:
      return new PairFailure('refused', `The backend refused (HTTP ${reply.status}): ${message}`);
  }
}
