import type { z } from 'zod';
import { ApiError } from './errors.js';

/** `['models', 0, 'id']` → `models[0].id`, the form error bodies use in `field`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * Turns the first zod issue into a 400 naming the field and the rule. Schema messages start
 * with the leaf key ("threshold_percent must be …"); the full path replaces it here.
 */
export function validationError(error: z.ZodError, prefix: readonly PropertyKey[] = []): ApiError {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])];
  const field = fieldPath(path);
  let message = issue?.message ?? 'invalid value';
  if (!field) return new ApiError('validation_failed', message);
  const leaf = String(path[path.length - 1]);
  if (message.startsWith(`${leaf} `)) message = field + message.slice(leaf.length);
  else if (!message.startsWith(field)) message = `${field}: ${message}`;
  return new ApiError('validation_failed', message, { field });
}

/** Validates a JSON request body (an object) against a schema, or throws the 400. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, prefix: readonly PropertyKey[] = []): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('validation_failed', 'The body must be a JSON object.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, prefix);
  return parsed.data;
}
