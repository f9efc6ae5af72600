import { createHash, X509Certificate } from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import { z } from 'zod';

/**
 * Certificate pinning for a backend on another machine (DESIGN section 11): at first contact the
 * user compares the fingerprint with the backend's `tls fingerprint:` log line; once paired, that
 * fingerprint is the only certificate accepted from the backend, whoever signed it. Plain Node, so
 * it is tested without Electron; app/main wires it into the session's certificate check.
 */

/** `SHA256:AB:CD:…`, the form the backend logs and `/api/pairing/status` reports. */
export function fingerprintOfDer(der: Uint8Array): string {
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return `SHA256:${hex.match(/../g)!.join(':')}`;
}

export function fingerprintOfPem(pem: string): string {
  return fingerprintOfDer(new X509Certificate(pem).raw);
}

/** Accepts `SHA256:ab:cd…`, `ab cd …` or 64 bare hex digits; null when it is not a SHA-256 fingerprint. */
export function normalizeFingerprint(input: string): string | null {
  const hex = input
    .trim()
    .replace(/^sha-?256[:\s]*/i, '')
    .replace(/[\s:]/g, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  return `SHA256:${hex.toUpperCase().match(/../g)!.join(':')}`;
}

const PinSchema = z.object({
  origin: z.string().regex(/^https:\/\/[^/]+$/, 'origin must be https://host[:port]'),
  fingerprint: z.string().refine((v) => normalizeFingerprint(v) === v, 'fingerprint must be SHA256: and 32 hex pairs'),
  pinned_at: z.string(),
});
export type Pin = z.infer<typeof PinSchema>;
const PinFileSchema = z.object({ pins: z.array(PinSchema) });

export type PinVerdict =
  { kind: 'unpinned' } | { kind: 'match' } | { kind: 'mismatch'; expected: string; presented: string; message: string };

export function mismatchMessage(origin: string, expected: string, presented: string): string {
  return (
    `The backend at ${origin} presented a different certificate than the one pinned when this app paired with it ` +
    `(pinned ${expected}, presented ${presented}). Someone may be intercepting the connection, or the backend's ` +
    'certificate was replaced (its selfhost/tls folder deleted, or a new -tls-cert). Compare the new fingerprint ' +
    'with the "tls fingerprint:" line in the backend log; if they match, re-pair to trust the new certificate.'
  );
}

/** The pins of every remote backend this app paired with, keyed by origin. */
export class PinBook {
  private readonly pins = new Map<string, Pin>();

  constructor(pins: readonly Pin[] = []) {
    for (const pin of pins) this.pins.set(pin.origin, pin);
  }

  /** Parses the pin file; the error names what is wrong (the caller keeps the file, never overwrites it). */
  static parse(text: string): PinBook {
    const parsed = PinFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`pins: ${issue.path.join('.')}: ${issue.message}`);
    }
    return new PinBook(parsed.data.pins);
  }

  toJSON(): { pins: Pin[] } {
    return { pins: [...this.pins.values()] };
  }

  get(origin: string): Pin | undefined {
    return this.pins.get(origin);
  }

  pin(origin: string, fingerprint: string, now = new Date()): Pin {
    const canonical = normalizeFingerprint(fingerprint);
    if (!canonical) throw new Error(`not a SHA-256 fingerprint: ${fingerprint}`);
    const pin = PinSchema.parse({ origin: new URL(origin).origin, fingerprint: canonical, pinned_at: now.toISOString() });
    this.pins.set(pin.origin, pin);
    return pin;
  }

  forget(origin: string): boolean {
    return this.pins.delete(origin);
  }

  verdict(origin: string, presented: string): PinVerdict {
    const pin = this.pins.get(origin);
    if (!pin) return { kind: 'unpinned' };
    if (pin.fingerprint === presented) return { kind: 'match' };
    return { kind: 'mismatch', expected: pin.fingerprint, presented, message: mismatchMessage(origin, pin.fingerprint, presented) };
  }

  /**
   * For Chromium's certificate check, which knows the host name but not the port: 0 accepts (a pin
   * of that host matches), -2 refuses (the host is pinned, to other certificates), -3 leaves the
   * usual verification to Chromium (a host never pinned: public CAs only).
   */
  chromiumVerdict(hostname: string, pem: string): 0 | -2 | -3 {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const mine = [...this.pins.values()].filter((p) => new URL(p.origin).hostname.replace(/^\[|\]$/g, '') === host);
    if (mine.length === 0) return -3;
    const presented = fingerprintOfPem(pem);
    return mine.some((p) => p.fingerprint === presented) ? 0 : -2;
  }
}

export class PinMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly presented: string,
    origin: string,
  ) {
    super(mismatchMessage(origin, expected, presented));
  }
}

function target(url: string): { host: string; port: number; servername?: string } {
  const u = new URL(url);
  if (u.protocol !== 'https:') throw new Error(`${url}: a remote backend must be reached over https://`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { host, port: Number(u.port || 443), servername: /^[\d.]+$|:/.test(host) ? undefined : host };
}

/**
 * First contact: the certificate the backend presents, whoever signed it. Nothing is sent over this
 * connection; the fingerprint is shown to the user to compare before anything is trusted.
 */
export function probeCertificate(url: string, timeoutMs = 10_000): Promise<{ fingerprint: string; names: string; validTo: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ ...target(url), rejectUnauthorized: false, timeout: timeoutMs }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      if (!cert?.raw) return reject(new Error(`${url}: the server presented no certificate`));
      resolve({ fingerprint: fingerprintOfDer(cert.raw), names: cert.subjectaltname ?? '', validTo: cert.valid_to });
    });
    socket.on('timeout', () => socket.destroy(new Error(`${url}: no TLS answer within ${timeoutMs} ms`)));
    socket.on('error', reject);
  });
}

/**
 * A JSON request that goes out only after the presented certificate matched `pin` (checked on the
 * TLS connection itself, before the request is written): the credential never reaches an impostor.
 */
export function pinnedRequest<T = unknown>(
  pin: Pin,
  method: string,
  pathname: string,
  options: { body?: unknown; credential?: string } = {},
): Promise<{ status: number; body: T }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request({
      ...target(pin.origin),
      method,
      path: pathname,
      agent: false,
      rejectUnauthorized: false, // the pin below is the check, not the CA chain
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(options.credential ? { authorization: `Bearer ${options.credential}` } : {}),
      },
    });
    req.on('socket', (socket) => {
      (socket as tls.TLSSocket).once('secureConnect', () => {
        const presented = fingerprintOfDer((socket as tls.TLSSocket).getPeerCertificate().raw);
        if (presented !== pin.fingerprint) req.destroy(new PinMismatchError(pin.fingerprint, presented, pin.origin));
        else req.end(body);
      });
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body: parsed as T });
      });
    });
    req.on('error', reject);
  });
}
