/** electron-updater's AppUpdater, reduced to what the controller uses (a stand-in in tests). */
export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export const CHECK_EVERY_MS = 6 * 3600_000;

export interface UpdateControllerOptions {
  updater: UpdaterLike;
  /** Whether the build has a `publish` feed (electron-builder writes app-update.yml from it); none, no checks. */
  hasFeed: boolean;
  /** Snapshot of the data directory (kind `pre-update`) before an update installs. */
  backup(): Promise<void>;
  /** Asks the user whether to restart now for version `version`; true = restart. */
  ask(version: string): Promise<boolean>;
  log(line: string): void;
  setInterval?: (fn: () => void, ms: number) => { unref?(): void };
}

/**
 * Updates (DESIGN.md 12): check at start and every 6 hours, download in the background, ask before
 * restarting, snapshot the data directory first; an update that was not installed now installs at
 * the next quit, which also takes the snapshot first.
 */
export class UpdateController {
  private pending: string | null = null;
  private installing = false;

  constructor(private readonly options: UpdateControllerOptions) {}

  /** False when there is no feed: nothing is checked, nothing scheduled. */
  start(): boolean {
    const { updater, hasFeed, log } = this.options;
    if (!hasFeed) {
      log('updates: no publish feed in this build; update checks are off');
      return false;
    }
    updater.autoDownload = true;
    // Installing on quit would skip the snapshot: the controller installs itself (see beforeQuit).
    updater.autoInstallOnAppQuit = false;
    updater.on('error', (err) => log(`updates: ${err.message}`));
    updater.on('update-downloaded', (info) => void this.downloaded(info.version));
    void this.check();
    const every = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms));
    every(() => void this.check(), CHECK_EVERY_MS).unref?.();
    return true;
  }

  private async check(): Promise<void> {
    try {
      await this.options.updater.checkForUpdates();
    } catch (err) {
      this.options.log(`updates: check failed: ${(err as Error).message}`);
    }
  }

  private async downloaded(version: string): Promise<void> {
    this.pending = version;
    this.options.log(`updates: version ${version} downloaded`);
    if (await this.options.ask(version)) await this.install();
  }

  /** Snapshot first; no snapshot, no install (the update stays pending). */
  async install(): Promise<boolean> {
    if (!this.pending || this.installing) return false;
    this.installing = true;
    try {
      await this.options.backup();
    } catch (err) {
      this.installing = false;
      this.options.log(`updates: not installing ${this.pending}: the backup before it failed: ${(err as Error).message}`);
      return false;
    }
    this.options.log(`updates: installing ${this.pending}`);
    this.options.updater.quitAndInstall(false, true);
    return true;
  }

  /** A downloaded update the user postponed: installed at quit, after the snapshot. */
  get pendingVersion(): string | null {
    return this.pending;
  }
}
