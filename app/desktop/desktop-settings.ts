import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readIfExists, writeFileAtomic } from '../../backend/data/atomic-write.js';
import { DEFAULT_QUICK_ASK_SHORTCUT } from './global-shortcut.js';

export const DesktopSettingsSchema = z.object({
  quick_ask_shortcut: z.string().min(1).max(80).default(DEFAULT_QUICK_ASK_SHORTCUT),
  /** Closing the main window keeps the app in the tray (DESIGN.md 12: "when the user chose so"). */
  close_to_tray: z.boolean().default(false),
});
export type DesktopSettings = z.infer<typeof DesktopSettingsSchema>;

/** The desktop shell's own settings (userData/desktop-settings.json); a damaged file means the defaults. */
export class DesktopSettingsStore {
  constructor(private readonly file: string) {}

  async read(): Promise<DesktopSettings> {
    const text = await readIfExists(this.file);
    try {
      return DesktopSettingsSchema.parse(text ? JSON.parse(text) : {});
    } catch {
      return DesktopSettingsSchema.parse({});
    }
  }

  async update(change: Partial<DesktopSettings>): Promise<DesktopSettings> {
    const next = DesktopSettingsSchema.parse({ ...(await this.read()), ...change });
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    return next;
  }
}
