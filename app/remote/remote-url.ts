import { isIP } from 'node:net';

/**
 * The address the user types in "Connect to another backend…". A remote backend is reached over
 * https:// (its `-tls auto` or operator certificate); plain http:// only on this machine's loopback,
 * or, like the backend's own `-allow-insecure-remote`, when the user says so knowing the credential
 * then crosses the network in clear.
 */
export type RemoteUrl =
  | { ok: true; origin: string; secure: boolean; loopback: boolean; warning?: string }
  | { ok: false; reason: 'invalid' | 'scheme' | 'insecure'; message: string };

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

export const INSECURE_WARNING =
  'This backend is reached over plain http://: the credential and every message cross the network unencrypted ' +
  'and nobody can check who answers. Use it only on a network you trust; prefer starting the backend with -tls auto.';

/** Validates the typed URL; a bare `host:port` means https. Only the origin is kept (a path is dropped). */
export function parseRemoteUrl(input: string, options: { allowInsecure?: boolean } = {}): RemoteUrl {
  const trimmed = input.trim();
  if (!trimmed) return { ok: false, reason: 'invalid', message: 'url: enter the backend address, e.g. https://192.168.1.20:8080' };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return { ok: false, reason: 'invalid', message: `url: "${trimmed}" is not an address (expected https://host:port)` };
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'invalid', message: 'url: must not carry a user name or password' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'scheme', message: `url: must start with https:// (got ${url.protocol}//)` };
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'https:') return { ok: true, origin: url.origin, secure: true, loopback };
  if (loopback) return { ok: true, origin: url.origin, secure: false, loopback };
  if (!options.allowInsecure) {
    return {
      ok: false,
      reason: 'insecure',
      message: `url: ${url.origin} is plain http:// on another machine; use https:// (start the backend with -tls auto) or confirm the unencrypted connection`,
    };
  }
  return { ok: true, origin: url.origin, secure: false, loopback, warning: INSECURE_WARNING };
}
