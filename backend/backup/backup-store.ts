import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { removeStaleTempFiles } from '../data/atomic-write.js';
import { SerialQueue } from '../data/serial-queue.js';
import type { BackupInfo, BackupKind } from './backup-api.js';
import { backupName, dailyDue, namesToPrune, parseBackupName } from './backup-names.js';
import { applyStaged } from './restore-apply.js';
import type { Manifest } from './snapshot-format.js';

// tar is loaded with the first snapshot written or restored, not at every start (the schedule's first
// daily snapshot is hours away).
const loadWriter = () => import('./snapshot-writer.js');
const loadReader = () => import('./snapshot-reader.js');

export interface BackupStoreOptions {
  /** The data directory; snapshots go to `<root>/backups/`. */
  root: string;
  now?: () => Date;
}

/** A snapshot unpacked and verified, ready to replace the data directory (or to be discarded). */
export interface PreparedRestore {
  manifest: Manifest;
  /** The snapshot was taken on another node (or this directory has no node id yet). */
  foreign: boolean;
  /** This data directory's node id (null before its first start). */
  nodeId: string | null;
  apply(): Promise<void>;
  discard(): Promise<void>;
}

/** Snapshots of the data directory in `backups/`: take, list, prune, verify and restore. */
export class BackupStore {
  readonly root: string;
  readonly dir: string;
  private readonly now: () => Date;
  private readonly queue = new SerialQueue();

  constructor(options: BackupStoreOptions) {
    this.root = options.root;
    this.dir = path.join(options.root, 'backups');
    this.now = options.now ?? (() => new Date());
  }

  private async ensureDir(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  async list(): Promise<BackupInfo[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const infos: BackupInfo[] = [];
    for (const name of names) {
      const parsed = parseBackupName(name);
      if (!parsed) continue;
      const stat = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
      if (stat?.isFile()) infos.push({ name, kind: parsed.kind, created_at: parsed.at.toISOString(), size_bytes: stat.size });
    }
    return infos.sort((a, b) => b.created_at.localeCompare(a.created_at));
  }

  /** Takes a snapshot now and prunes old automatic ones; one snapshot at a time. */
  create(kind: BackupKind): Promise<BackupInfo> {
    return this.queue.run('backups', async () => {
      await this.ensureDir();
      await removeStaleTempFiles(this.dir);
      let at = this.now();
      let name = backupName(at, kind);
      // Two in the same millisecond (a script calling `backup` twice): the later one moves on by 1 ms.
      while (
        await fs.stat(path.join(this.dir, name)).then(
          () => true,
          () => false,
        )
      ) {
        at = new Date(at.getTime() + 1);
        name = backupName(at, kind);
      }
      const { writeSnapshot } = await loadWriter();
      const size = await writeSnapshot(this.root, path.join(this.dir, name), kind, at);
      await this.prune();
      return { name, kind, created_at: at.toISOString(), size_bytes: size };
    });
  }

  /** A daily snapshot when none was taken in the last 24 hours; null when none was due. */
  async dailyIfDue(): Promise<BackupInfo | null> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    return dailyDue(names, this.now()) ? this.create('daily') : null;
  }

  private async prune(): Promise<void> {
    const names = await fs.readdir(this.dir);
    await Promise.all(namesToPrune(names).map((n) => fs.rm(path.join(this.dir, n), { force: true })));
  }

  /** Full path of a snapshot in `backups/` by its name, or null if there is no such snapshot. */
  async find(name: string): Promise<string | null> {
    if (!parseBackupName(name)) return null;
    const file = path.join(this.dir, name);
    return (await fs.stat(file).catch(() => undefined))?.isFile() ? file : null;
  }

  async remove(name: string): Promise<boolean> {
    const file = await this.find(name);
    if (!file) return false;
    await this.queue.run('backups', () => fs.rm(file, { force: true }));
    return true;
  }

  /**
   * Unpacks and verifies a snapshot (any file path) without touching the data directory.
   * Throws SnapshotInvalidError when it cannot be restored.
   */
  async prepare(file: string): Promise<PreparedRestore> {
    await this.ensureDir();
    const staging = path.join(this.dir, `.restore-${randomBytes(6).toString('hex')}`);
    const discard = () => fs.rm(staging, { recursive: true, force: true });
    try {
      const [{ unpackVerified }, { readNodeId }] = await Promise.all([loadReader(), loadWriter()]);
      const manifest = await unpackVerified(file, staging);
      const nodeId = await readNodeId(this.root);
      const foreign = nodeId === null || manifest.node_id !== nodeId;
      return { manifest, foreign, nodeId, discard, apply: () => applyStaged(this.root, staging, manifest) };
    } catch (err) {
      await discard();
      throw err;
    }
  }

  /** Removes staging folders a crash during a restore left behind (an hour old: none in use). */
  async removeLeftovers(): Promise<void> {
    const names = (await fs.readdir(this.dir).catch(() => [] as string[])).filter((n) => n.startsWith('.restore-'));
    const cutoff = this.now().getTime() - 3600_000;
    for (const name of names) {
      const stat = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) await fs.rm(path.join(this.dir, name), { recursive: true, force: true });
    }
  }
}
