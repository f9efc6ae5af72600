import { ApiError } from '../http/errors.js';

export const FAILURE_WINDOW_MS = 10 * 60 * 1000;
export const FAILURE_BUDGET = 10;

/**
 * The global failure budget shared by claims and invite joins: past FAILURE_BUDGET failures inside
 * the window every attempt gets 429 with Retry-After, whoever sends it (not per IP; loopback too).
 */
export function pruneFailures(failures: number[], now: number, windowMs: number): number[] {
  const cutoff = now - windowMs;
  return failures.filter((t) => t > cutoff);
}

export function throwIfThrottled(failures: number[], now: number, windowMs: number): void {
  if (failures.length < FAILURE_BUDGET) return;
  const oldestInBudget = failures[failures.length - FAILURE_BUDGET];
  const retryAfter = Math.max(1, Math.ceil((oldestInBudget + windowMs - now) / 1000));
  throw new ApiError('too_many_requests', `Too many failed attempts; try again in ${retryAfter} s.`, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}
