import { promises as fs } from 'node:fs';
import path from 'node:path';
import { BackupStore } from '../backup/backup-store.js';
import { formatBytes } from '../backup/backup-names.js';
import { SnapshotInvalidError } from '../backup/snapshot-errors.js';
import { InstanceLock, InstanceLockedError, readLiveInstance } from '../data/instance-lock.js';

/** What a restore brings back, and what it never does (said for a snapshot of another node). */
const FOREIGN_NOTE =
  'it brings config, profiles, workspaces, sessions, attachments, skills and knowledge; ' +
  "it keeps this node's identity, paired devices and credentials, TLS key and certificate, tool-server sign-ins and bootstrap secret";

/** A sub-command failure with the message for stderr (exit 1). */
export class CommandError extends Error {}

/** `backup`: a snapshot into `backups/`, also while the service runs (files are read one at a time). */
export async function backupCommand(dataDir: string): Promise<string> {
  if (!(await fs.stat(dataDir).catch(() => undefined))?.isDirectory()) throw new CommandError(`no data directory at ${dataDir}`);
  const store = new BackupStore({ root: dataDir });
  const info = await store.create('manual');
  return `backup written: ${path.join(store.dir, info.name)} (${formatBytes(info.size_bytes)})`;
}

/**
 * `restore FILE`: refuses while a service runs on the directory (it would write its old state back);
 * holds the instance lock so none starts meanwhile; verifies before changing anything; snapshots the
 * current state first. Content only: this node's identity and trust state (`selfhost/`) stay; a
 * snapshot of another node needs `foreign`.
 */
export async function restoreCommand(dataDir: string, file: string, foreign = false): Promise<string[]> {
  const running = await readLiveInstance(dataDir);
  if (running) {
    throw new CommandError(
      `the service is running on ${dataDir} (pid ${running.pid}); stop it first, or restore from the app (Settings, Backups)`,
    );
  }
  // Nothing else is created or repaired here: a refused snapshot must leave the directory as it was.
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  let lock: InstanceLock;
  try {
    lock = await InstanceLock.acquire(dataDir);
  } catch (err) {
    if (err instanceof InstanceLockedError) throw new CommandError(err.message);
    throw err;
  }
  try {
    const store = new BackupStore({ root: dataDir });
    const source = (await store.find(file)) ?? path.resolve(file);
    let prepared;
    try {
      prepared = await store.prepare(source);
    } catch (err) {
      if (err instanceof SnapshotInvalidError) throw new CommandError(`${err.message}; nothing was changed`);
      throw err;
    }
    if (prepared.foreign && !foreign) {
      await prepared.discard();
      throw new CommandError(
        `${source} was taken on another node (${prepared.manifest.node_id ?? 'unknown'}; this data directory is ${prepared.nodeId ?? 'not set up yet'}). ` +
          `Add -foreign to restore its content here (${FOREIGN_NOTE}); nothing was changed`,
      );
    }
    let safety;
    try {
      safety = await store.create('pre-restore');
      await prepared.apply();
    } catch (err) {
      await prepared.discard();
      throw err;
    }
    return [
      ...(prepared.foreign ? [`restoring a snapshot of another node: ${FOREIGN_NOTE}`] : []),
      `state before the restore saved as ${path.join(store.dir, safety.name)}`,
      `restored ${source} (taken ${prepared.manifest.created_at}) into ${dataDir}`,
    ];
  } finally {
    lock.release();
  }
}
