/** Types of the backup API the renderer uses (type-only imports). */

/** Why a snapshot was taken; automatic kinds are pruned, `manual` ones stay until deleted. */
export type BackupKind = 'daily' | 'manual' | 'pre-update' | 'pre-restore';

export interface BackupInfo {
  /** File name in `backups/`, e.g. `backup-2026-11-24T10-00-00-000Z-daily.tar.gz`. */
  name: string;
  kind: BackupKind;
  /** ISO time the snapshot was taken (from the name, so a copied file keeps it). */
  created_at: string;
  size_bytes: number;
}

/** GET /api/backups */
export interface BackupListResponse {
  backups: BackupInfo[];
  /** Absolute path of the `backups/` folder, for the user to copy snapshots elsewhere. */
  dir: string;
}

/** POST /api/backups body; `kind` defaults to `manual` (the desktop app sends `pre-update`). */
export interface BackupCreateRequest {
  kind?: 'manual' | 'pre-update';
}

/** POST /api/backups/:name/restore answer (202): the service restarts on the restored data. */
export interface RestoreResponse {
  restoring: true;
  /** The snapshot of the state just before the restore. */
  safety_backup: BackupInfo;
}
