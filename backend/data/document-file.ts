import { ApiError } from '../http/errors.js';
import { readIfExists, writeFileAtomic } from './atomic-write.js';
import type { FileProblem } from './data-api.js';

export type JsonRead = { ok: true; value: unknown; exists: boolean } | { ok: false; problem: FileProblem };

/** Reads a JSON data file; a missing file is `undefined`, a broken one a problem (never thrown). */
export async function readJsonFile(file: string): Promise<JsonRead> {
  const text = await readIfExists(file);
  if (text === undefined) return { ok: true, value: undefined, exists: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown, exists: true };
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : null;
    return { ok: false, problem: { file, line, message } };
  }
}

export function writeJsonFile(file: string, value: unknown): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

/** The 409 for a file that failed to parse: it names the place and the reason, and is never overwritten. */
export function configInvalid(problems: FileProblem[]): ApiError {
  const p = problems[0];
  const where = p ? `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}` : 'unknown parse error';
  return new ApiError('config_invalid', `${where}. Fix the file by hand; the API will not overwrite it until then.`);
}
