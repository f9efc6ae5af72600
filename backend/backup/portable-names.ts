/**
 * The names a snapshot may hold, by one rule on every OS: what Linux, macOS (case-insensitive,
 * Unicode-normalising) and Windows (reserved names and characters) can all create. A snapshot made
 * on Linux then restores everywhere, or is refused everywhere before anything changes.
 */

/** Longest name of one path segment most file systems accept (bytes of UTF-8). */
const MAX_SEGMENT_BYTES = 255;
/** Longest relative path: stays under Windows' classic limit with a data directory in front. */
const MAX_PATH_CHARS = 1024;
// eslint-disable-next-line no-control-regex
const WINDOWS_FORBIDDEN = /[<>:"|?*\u0000-\u001f]/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** How two names are the same file on a case-insensitive, normalising file system. */
function foldKey(rel: string): string {
  return rel.normalize('NFC').toUpperCase().toLowerCase();
}

/** Why one segment cannot be created on some OS, or null. */
function segmentProblem(segment: string): string | null {
  if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) return `a name longer than ${MAX_SEGMENT_BYTES} bytes`;
  if (WINDOWS_FORBIDDEN.test(segment)) return 'a character some systems refuse (control, < > : " | ? *)';
  if (WINDOWS_RESERVED.test(segment)) return 'a name Windows reserves';
  if (/[ .]$/.test(segment)) return 'a name ending in a dot or a space';
  return null;
}

/**
 * The first problem with a snapshot's listing (folders and files), naming the entry, or null:
 * an unportable name, two names equal in any letter case, a file where a folder is (or under a file).
 */
export function listingProblem(dirs: readonly string[], files: readonly string[]): string | null {
  const seen = new Map<string, { rel: string; file: boolean }>();
  const add = (rel: string, file: boolean): string | null => {
    if (rel.length > MAX_PATH_CHARS) return `"${rel.slice(0, 80)}…" has a path longer than ${MAX_PATH_CHARS} characters`;
    for (const segment of rel.split('/')) {
      const why = segmentProblem(segment);
      if (why) return `"${rel}" has ${why}`;
    }
    const key = foldKey(rel);
    const before = seen.get(key);
    if (before) {
      if (before.rel === rel) return before.file === file ? `"${rel}" appears twice` : `"${rel}" is both a folder and a file`;
      return `"${rel}" and "${before.rel}" differ only in letter case (one file on macOS and Windows)`;
    }
    seen.set(key, { rel, file });
    return null;
  };
  for (const d of dirs) {
    const why = add(d, false);
    if (why) return why;
  }
  for (const f of files) {
    const why = add(f, true);
    if (why) return why;
  }
  // Every parent of an entry must be a folder: never a file, and listed as a folder.
  for (const { rel } of seen.values()) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = seen.get(foldKey(parts.slice(0, i).join('/')));
      if (!parent) return `"${rel}" is in folder "${parts.slice(0, i).join('/')}", which the snapshot does not list`;
      if (parent.file) return `"${rel}" is under "${parent.rel}", which is a file`;
    }
  }
  return null;
}
