import { promises as fs, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

// The files of a folder source (DESIGN 13): recursive, include/exclude globs over the path relative
// to the folder, `.git`, `node_modules` and dot-folders left out, and symlinks followed only when
// they point at a file inside the folder (never out of it, never into a directory loop).

const SKIPPED_DIRS = new Set(['node_modules', '.git']);
/** A folder of more files than this is refused past the limit (the rest is not indexed). */
export const MAX_FOLDER_FILES = 50_000;

/** `**` any path, `*` within a segment, `?` one character; matched against the whole relative path. */
export function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export interface FolderFile {
  rel: string;
  abs: string;
  size: number;
  mtime: number;
}

export async function walkFolder(root: string, include: string[], exclude: string[], maxBytes: number): Promise<FolderFile[]> {
  const real = await fs.realpath(root);
  const inc = (include.length ? include : ['**']).map(globRegex);
  const exc = exclude.map(globRegex);
  const out: FolderFile[] = [];
  const inside = (p: string) => p === real || p.startsWith(real + path.sep);
  const visit = async (dir: string, relDir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (out.length >= MAX_FOLDER_FILES) return;
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (SKIPPED_DIRS.has(e.name) || e.name.startsWith('.')) continue;
        if (exc.some((r) => r.test(rel) || r.test(`${rel}/`))) continue;
        await visit(abs, rel);
        continue;
      }
      let target = abs;
      if (e.isSymbolicLink()) {
        const resolved = await fs.realpath(abs).catch(() => null);
        if (!resolved || !inside(resolved)) continue;
        target = resolved;
      } else if (!e.isFile()) continue;
      if (!inc.some((r) => r.test(rel)) || exc.some((r) => r.test(rel))) continue;
      const st = await fs.stat(target).catch(() => null);
      if (!st?.isFile() || st.size === 0 || st.size > maxBytes) continue;
      out.push({ rel, abs: target, size: st.size, mtime: st.mtimeMs });
    }
  };
  await visit(real, '');
  return out;
}

/** Calls `onChange` (debounced) when anything under `root` changes; null where watching is not possible. */
export function watchFolder(root: string, onChange: () => void, debounceMs = 1000): FSWatcher | null {
  let timer: NodeJS.Timeout | null = null;
  try {
    const w = watch(root, { recursive: true, persistent: false }, (_event, name) => {
      const rel = String(name ?? '');
      if (rel.split(/[/\\]/).some((s) => s.startsWith('.') || s === 'node_modules')) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
      timer.unref();
    });
    w.on('error', () => undefined);
    return w;
  } catch {
    return null;
  }
}
