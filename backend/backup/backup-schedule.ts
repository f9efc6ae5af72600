import type { BackupStore } from './backup-store.js';

export interface BackupScheduleOptions {
  store: BackupStore;
  log: (line: string) => void;
  error: (line: string) => void;
  /** First check after start; not at once, so start-up stays quick and short-lived runs take none. */
  firstCheckMs: number;
  /** Later checks; a daily snapshot is taken when the newest is 24 hours old. */
  intervalMs?: number;
}

/** Daily snapshots while the service runs (7 kept). */
export class BackupSchedule {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: BackupScheduleOptions) {}

  start(): void {
    this.schedule(this.options.firstCheckMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const { store, log, error } = this.options;
    try {
      await store.removeLeftovers();
      const info = await store.dailyIfDue();
      if (info) log(`daily backup written: backups/${info.name} (${info.size_bytes} bytes)`);
    } catch (err) {
      error(`error: daily backup failed: ${(err as Error).message}`);
    }
    this.schedule(this.options.intervalMs ?? 3600_000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
