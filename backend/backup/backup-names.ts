import type { BackupKind } from './backup-api.js';

/** Kinds a client may ask for; the others are taken by the service itself. */
export const BACKUP_KINDS = ['daily', 'manual', 'pre-update', 'pre-restore'] as const satisfies readonly BackupKind[];

/** How many snapshots of each automatic kind are kept; `manual` ones stay until the user deletes them. */
export const KEEP: Record<BackupKind, number> = { daily: 7, 'pre-update': 3, 'pre-restore': 3, manual: Infinity };

const NAME_RE = /^backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-(daily|manual|pre-update|pre-restore)\.tar\.gz$/;

/** `backup-2026-11-24T10-00-00-000Z-daily.tar.gz`: sorts by time, no characters Windows refuses. */
export function backupName(at: Date, kind: BackupKind): string {
  return `backup-${at.toISOString().replace(/[:.]/g, '-')}-${kind}.tar.gz`;
}

export interface ParsedName {
  kind: BackupKind;
  at: Date;
}

/** The kind and time a snapshot name encodes, or null for any other file name. */
export function parseBackupName(name: string): ParsedName | null {
  const m = NAME_RE.exec(name);
  if (!m) return null;
  const at = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  if (Number.isNaN(at.getTime())) return null;
  return { kind: m[6] as BackupKind, at };
}

/** Names to delete so that at most KEEP[kind] of each kind remain (the newest ones). */
export function namesToPrune(names: readonly string[]): string[] {
  const byKind = new Map<BackupKind, { name: string; at: number }[]>();
  for (const name of names) {
    const parsed = parseBackupName(name);
    if (!parsed) continue;
    const list = byKind.get(parsed.kind) ?? [];
    list.push({ name, at: parsed.at.getTime() });
    byKind.set(parsed.kind, list);
  }
  const doomed: string[] = [];
  for (const [kind, list] of byKind) {
    list.sort((a, b) => b.at - a.at);
    doomed.push(...list.slice(KEEP[kind]).map((e) => e.name));
  }
  return doomed;
}

/** A daily snapshot is due when none was taken in the last 24 hours. */
export function dailyDue(names: readonly string[], now: Date): boolean {
  const newest = Math.max(
    -Infinity,
    ...names
      .map(parseBackupName)
      .filter((p): p is ParsedName => p?.kind === 'daily')
      .map((p) => p.at.getTime()),
  );
  return now.getTime() - newest >= 24 * 3600_000;
}

/** `1.5 MB`-style size for command output. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
