import type * as Sqlite from 'node:sqlite';

let loading: Promise<typeof Sqlite> | undefined;

/**
 * `node:sqlite`, loaded on first use: Node 22 and Electron's Node both carry it (FTS5 included), no
 * native addon to rebuild. Its one-time ExperimentalWarning is kept off stderr, which the desktop
 * app and scripts read; every other warning passes through.
 */
export function loadSqlite(): Promise<typeof Sqlite> {
  loading ??= (async () => {
    const original = process.emitWarning;
    process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
      const text = typeof warning === 'string' ? warning : warning?.message;
      if (/SQLite is an experimental feature/.test(text ?? '')) return;
      return (original as (...args: unknown[]) => void).call(this, warning, ...rest);
    } as typeof process.emitWarning;
    try {
      return await import('node:sqlite');
    } finally {
      process.emitWarning = original;
    }
  })();
  return loading;
}
