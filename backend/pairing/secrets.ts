import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const CREDENTIAL_PREFIX = 'svc_';

/** 256 random bits, base64url, prefixed: `svc_…`. */
export function newCredential(): string {
  return CREDENTIAL_PREFIX + randomBytes(32).toString('base64url');
}

/** Six digits, uniform from the CSPRNG (randomInt rejects biased draws). */
export function newPairingCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison over fixed-length digests, whatever the input lengths. */
export function digestEquals(candidate: string, expectedHex: string): boolean {
  const a = createHash('sha256').update(candidate, 'utf8').digest();
  const b = Buffer.from(expectedHex, 'hex');
  return b.length === a.length && timingSafeEqual(a, b);
}
