import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BACKEND_ENTRY } from '../helpers/backend-process.js';

/** Runs a sub-command of the built backend. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, timeout = 30_000) {
  return spawnSync(process.execPath, [BACKEND_ENTRY, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout });
}

/**
 * Every folder and file of a data directory outside backups/ and trash/ (and the live lock), with
 * each file's SHA-256 and mode: two equal results mean a byte-identical tree.
 */
export function treeOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (!rel && (name === 'backups' || name === 'trash')) continue;
      if (child === 'selfhost/instance.lock') continue;
      // Derived (rebuilt from the logs, written whenever the service likes): never in a snapshot.
      if (!rel && name.startsWith('search-index.sqlite')) continue;
      const abs = path.join(root, child);
      const stat = statSync(abs);
      if (stat.isDirectory()) {
        out[`${child}/`] = 'dir';
        walk(child);
      } else {
        const mode = (stat.mode & 0o777).toString(8);
        out[child] = `${mode} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`;
      }
    }
  };
  walk('');
  return out;
}

/** Names in backups/ (snapshots and anything a failed run left there). */
export function backupsOf(root: string): string[] {
  try {
    return readdirSync(path.join(root, 'backups')).sort();
  } catch {
    return [];
  }
}

import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Header, ReadEntry, Parser, WriteEntryTar } from 'tar';
import { createReadStream } from 'node:fs';

export interface RawEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink';
  body?: Buffer;
  linkpath?: string;
}

/** Writes a gzip'd tar holding exactly `entries` (hand-made snapshots, valid or hostile). */
export async function packEntries(file: string, entries: RawEntry[]): Promise<void> {
  const chunks: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? 'File';
    const entry = new ReadEntry(
      new Header({ path: e.path, type, size: e.body?.length ?? 0, mode: 0o600, linkpath: e.linkpath, mtime: new Date() }),
    );
    const writer = new WriteEntryTar(entry, { portable: true });
    writer.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise<void>((resolve) => writer.on('end', () => resolve()));
    if (e.body) entry.write(e.body);
    entry.end();
    await done;
  }
  writeFileSync(file, gzipSync(Buffer.concat([...chunks, Buffer.alloc(1024)])), { mode: 0o600 });
}

/** Every entry of a snapshot with its body, in archive order. */
export async function readEntries(file: string): Promise<RawEntry[]> {
  const entries: RawEntry[] = [];
  const pending: Promise<void>[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        const item: RawEntry = { path: entry.path, type: entry.type as RawEntry['type'] };
        entries.push(item);
        pending.push(
          (async () => {
            for await (const c of entry) chunks.push(c as Buffer);
            item.body = Buffer.concat(chunks);
          })(),
        );
      },
    });
    parser.on('end', resolve);
    parser.on('error', reject);
    createReadStream(file).pipe(parser);
  });
  await Promise.all(pending);
  return entries;
}

export interface CraftedFile {
  path: string;
  body: Buffer;
}

/** A manifest (format 2) listing `dirs` and `files` exactly as given, for hand-made snapshots. */
export function manifestEntry(nodeId: string | null, dirs: string[], files: CraftedFile[]): RawEntry {
  const manifest = {
    format: 2,
    created_at: new Date().toISOString(),
    kind: 'manual',
    version: 'test',
    node_id: nodeId,
    dirs,
    files: files.map((f) => ({
      path: f.path,
      size: f.body.length,
      mode: 0o600,
      sha256: createHash('sha256').update(f.body).digest('hex'),
    })),
  };
  return { path: 'manifest.json', body: Buffer.from(JSON.stringify(manifest)) };
}

/** A snapshot whose manifest lists exactly what it holds: hostile only by its names. */
export async function craftSnapshot(file: string, nodeId: string | null, dirs: string[], files: CraftedFile[]): Promise<void> {
  await packEntries(file, [
    manifestEntry(nodeId, dirs, files),
    ...dirs.map((d): RawEntry => ({ path: `data/${d}/`, type: 'Directory' })),
    ...files.map((f): RawEntry => ({ path: `data/${f.path}`, body: f.body })),
  ]);
}

/** The node id a data directory has (its `selfhost/pairing.json`). */
export function nodeIdOf(dataDir: string): string {
  return (JSON.parse(readFileSync(path.join(dataDir, 'selfhost', 'pairing.json'), 'utf8')) as { node_id: string }).node_id;
}
