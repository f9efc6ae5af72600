import http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import { z } from 'zod';
import type { PairingStatus } from '../../backend/pairing/pairing-api.js';
import { fingerprintOfDer } from './cert-pinning.js';
import type { RemoteProbe } from './remote-api.js';

export type { RemoteProbe };

const StatusSchema = z.looseObject({
  bound: z.boolean(),
  pairing_required: z.boolean(),
  pairing_expires_at: z.string().nullable(),
  display_name: z.string().nullable(),
  bootstrap_mode: z.enum(['local', 'managed']),
  node_id: z.string(),
  tls_fingerprint: z.string().optional(),
});

/** Host/port/SNI for Node from an origin (SNI only for names, not IP literals). */
export function connectTarget(origin: string): { host: string; port: number; servername?: string } {
  const u = new URL(origin);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return { host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host };
}

/**
 * First contact: GET /api/pairing/status without trusting the certificate (nothing secret is
 * sent), keeping the fingerprint of the certificate that served the answer.
 */
export function probeRemote(origin: string, timeoutMs = 10_000): Promise<RemoteProbe> {
  const secure = new URL(origin).protocol === 'https:';
  return new Promise((resolve, reject) => {
    let fingerprint: string | null = null;
    let certificate: RemoteProbe['certificate'] = null;
    const options = { ...connectTarget(origin), method: 'GET', path: '/api/pairing/status', agent: false as const, timeout: timeoutMs };
    const req = secure
      ? // The certificate is shown to the user to compare, not checked against any CA.
        https.request({ ...options, rejectUnauthorized: false })
      : http.request(options);
    req.on('socket', (socket) => {
      if (!secure) return;
      (socket as tls.TLSSocket).once('secureConnect', () => {
        const cert = (socket as tls.TLSSocket).getPeerCertificate();
        if (cert?.raw) {
          fingerprint = fingerprintOfDer(cert.raw);
          certificate = { names: cert.subjectaltname ?? '', valid_to: cert.valid_to };
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${origin}: no answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(probeFailure(origin, err, secure))));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > 64 * 1024) req.destroy(new Error(`${origin}: the status answer is too large`));
      });
      res.on('end', () => {
        let parsed: ReturnType<typeof StatusSchema.safeParse> | undefined;
        try {
          parsed = StatusSchema.safeParse(JSON.parse(text));
        } catch {
          parsed = undefined;
        }
        if (res.statusCode !== 200 || !parsed?.success) {
          return reject(
            new Error(
              `${origin} answered /api/pairing/status with HTTP ${res.statusCode} but not a backend's pairing status: is it this app's backend?`,
            ),
          );
        }
        if (secure && !fingerprint) return reject(new Error(`${origin}: the server presented no certificate`));
        const status = parsed.data as PairingStatus;
        const agrees = secure ? (status.tls_fingerprint === undefined ? null : status.tls_fingerprint === fingerprint) : null;
        resolve({ origin, secure, fingerprint, certificate, status, status_agrees: agrees });
      });
    });
    req.end();
  });
}

/** Why the first contact failed, in words that point at the likely cause. */
function probeFailure(origin: string, err: NodeJS.ErrnoException, secure: boolean): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `${origin}: nothing is listening there (connection refused). Is the backend running, with -host set to an address this machine can reach?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${origin}: the host name could not be resolved`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${origin}: the host cannot be reached from this network`;
    case 'ECONNRESET':
    case 'EPROTO':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return secure
        ? `${origin}: the TLS handshake failed (${err.code}). Does the backend serve https (-tls auto)? A backend with -client-ca also needs a client certificate, which the app does not have.`
        : `${origin}: the connection was reset (${err.code})`;
    default:
      return err.message.startsWith(origin) ? err.message : `${origin}: ${err.message}`;
  }
}
