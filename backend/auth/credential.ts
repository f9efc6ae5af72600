import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.js';
import type { PairingService } from '../pairing/pairing-service.js';

/** The credential from `Authorization: Bearer …` or `X-Service-Credential: …`. */
export function credentialFromHeaders(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers['x-service-credential'];
  if (typeof direct === 'string' && direct) return direct.trim();
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  return undefined;
}

/** The calling device, set by requireCredential (routes read it for `current` and rotation). */
export function callingDevice(res: { locals: Record<string, unknown> }): string {
  return res.locals.deviceId as string;
}

export function requireCredential(pairing: PairingService): RequestHandler {
  return (req, res, next) => {
    const deviceId = pairing.authenticate(credentialFromHeaders(req.headers));
    if (!deviceId) {
      res.set('WWW-Authenticate', 'Bearer');
      return next(new ApiError('unauthorized'));
    }
    res.locals.deviceId = deviceId;
    next();
  };
}
