import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import type { FileProblem } from '../profiles/profile-schema.js';

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
