import express, { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { limitJsonDepth } from '../http/guards.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { callingDevice } from '../auth/credential.js';
import { InviteRequestSchema, JoinRequestSchema } from '../pairing/pairing-api.js';

/** Parses a JSON object body with `schema`; the error names the field and the rule. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('validation_failed', 'The body must be a JSON object.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue.path[0] ?? '');
    const message = issue.message.startsWith(field) ? issue.message : `${field} ${issue.message}`;
    throw new ApiError('validation_failed', message, { field });
  }
  return parsed.data;
}

export const ClaimSchema = z.object({
  pairing_code: z
    .string({ error: 'pairing_code must be a string of 6 digits' })
    .max(64, 'pairing_code must be a string of 6 digits')
    .optional(),
  bootstrap_secret: z
    .string({ error: 'bootstrap_secret must be a string' })
    .max(1024, 'bootstrap_secret must be at most 1024 characters')
    .optional(),
  display_name: z
    .string({ error: 'display_name must be a string' })
    .trim()
    .min(1)
    .max(100, 'display_name must be at most 100 characters')
    .optional(),
});

/** Unauthenticated pairing endpoints: status and claim (claim bodies are capped at 4 KiB). */
export function pairingRoutes(pairing: PairingService, tlsFingerprint: () => string | null = () => null): Router {
  const router = Router();
  router.get('/api/pairing/status', (_req, res) => {
    // Present only over TLS: the value a user compares with the `tls fingerprint:` log line.
    const fingerprint = tlsFingerprint();
    res.json(fingerprint ? { ...pairing.status(), tls_fingerprint: fingerprint } : pairing.status());
  });
  router.post('/api/pairing/claim', express.json({ limit: '4kb' }), limitJsonDepth, async (req, res) => {
    // Spec: once paired, any claim is a 409, whatever it carries.
    if (pairing.isPaired()) throw new ApiError('already_paired');
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ApiError('validation_failed', 'The body must be a JSON object.');
    }
    const parsed = ClaimSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError('validation_failed', issue.message, { field: String(issue.path[0] ?? '') });
    }
    res.json(await pairing.claim(parsed.data));
  });
  // A further device redeems an invite from a paired one (never through claim once paired).
  router.post('/api/pairing/join', express.json({ limit: '4kb' }), limitJsonDepth, async (req, res) => {
    res.json(await pairing.join(parseBody(JoinRequestSchema, req.body ?? {})));
  });
  return router;
}

/** Protected self-host endpoints: devices, invites, the calling device's rotation, reset. */
export function selfhostRoutes(pairing: PairingService): Router {
  const router = Router();
  router.get('/api/selfhost/devices', (_req, res) => {
    res.json({ devices: pairing.devices(callingDevice(res)) });
  });
  // Also revokes the devices it invited (the list's invited_by says which, for the confirmation).
  router.delete('/api/selfhost/devices/:id', async (req, res) => {
    await pairing.revokeDevice(req.params.id);
    res.status(204).end();
  });
  router.post('/api/selfhost/devices/invite', (req, res) => {
    const body = parseBody(InviteRequestSchema, req.body ?? {});
    res.json(pairing.invite(body.name, body.role, callingDevice(res)));
  });
  router.post('/api/selfhost/credential/rotate', async (_req, res) => {
    const deviceId = callingDevice(res);
    const credential = await pairing.rotateCredential(deviceId);
    res.json({ credential, node_id: pairing.nodeId, device_id: deviceId, role: pairing.roleOf(deviceId) });
  });
  router.post('/api/selfhost/pairing/reset', async (_req, res) => {
    await pairing.reset();
    res.json(pairing.status());
  });
  return router;
}
