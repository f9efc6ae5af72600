/** Electron's globalShortcut, reduced to what the registrar uses (a stand-in in tests). */
export interface GlobalShortcutLike {
  register(accelerator: string, callback: () => void): boolean;
  unregister(accelerator: string): void;
  isRegistered(accelerator: string): boolean;
}

export const DEFAULT_QUICK_ASK_SHORTCUT = 'CommandOrControl+Shift+Space';

export type ShortcutResult =
  { ok: true; accelerator: string } | { ok: false; reason: 'invalid' | 'taken'; message: string; active: string | null };

const MODIFIERS = new Set([
  'Command',
  'Cmd',
  'Control',
  'Ctrl',
  'CommandOrControl',
  'CmdOrCtrl',
  'Alt',
  'Option',
  'AltGr',
  'Shift',
  'Super',
  'Meta',
]);
const KEY =
  /^(?:[A-Z0-9]|F(?:[1-9]|1\d|2[0-4])|Space|Tab|Backspace|Delete|Insert|Return|Enter|Up|Down|Left|Right|Home|End|PageUp|PageDown|Escape|Esc|Plus|[`~!@#$%^&*()\-=[\]\\;',./])$/;

/** An Electron accelerator a global shortcut can use: at least one modifier and exactly one key. */
export function validAccelerator(value: string): boolean {
  const parts = value.split('+');
  if (parts.some((p) => p === '')) return false;
  const key = parts.at(-1)!;
  const mods = parts.slice(0, -1);
  return mods.length > 0 && mods.every((m) => MODIFIERS.has(m)) && new Set(mods).size === mods.length && KEY.test(key);
}

/**
 * Holds the quick-ask shortcut. A change registers the new one before letting go of the old; when
 * the system or another app holds it, the old one stays and the clash is reported, never silent.
 */
export class ShortcutRegistrar {
  private current: string | null = null;

  constructor(
    private readonly shortcuts: GlobalShortcutLike,
    private readonly onTrigger: () => void,
  ) {}

  get active(): string | null {
    return this.current;
  }

  apply(accelerator: string): ShortcutResult {
    if (!validAccelerator(accelerator)) {
      return {
        ok: false,
        reason: 'invalid',
        message: `"${accelerator}" is not a shortcut: use modifiers and one key, e.g. ${DEFAULT_QUICK_ASK_SHORTCUT}`,
        active: this.current,
      };
    }
    if (accelerator === this.current && this.shortcuts.isRegistered(accelerator)) return { ok: true, accelerator };
    // register() is false when another application (or the system) already owns the combination.
    const taken = this.shortcuts.isRegistered(accelerator) || !this.shortcuts.register(accelerator, this.onTrigger);
    if (taken) {
      return {
        ok: false,
        reason: 'taken',
        message: `${accelerator} is already used by another application or the system; choose another`,
        active: this.current,
      };
    }
    if (this.current && this.current !== accelerator) this.shortcuts.unregister(this.current);
    this.current = accelerator;
    return { ok: true, accelerator };
  }

  release(): void {
    if (this.current) this.shortcuts.unregister(this.current);
    this.current = null;
  }
}
