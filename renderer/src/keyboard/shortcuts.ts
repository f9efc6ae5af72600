import type { MessageKey } from '../i18n/i18n';

/** The contract's shortcuts (DESIGN.md 12); Mod is Cmd on macOS, Ctrl elsewhere. */
export type ShortcutId = 'newChat' | 'palette' | 'search' | 'settings' | 'sheet';

export interface Shortcut {
  id: ShortcutId;
  shift: boolean;
  /** KeyboardEvent.key, lower-cased. */
  key: string;
  label: MessageKey;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'newChat', shift: false, key: 'n', label: 'keys.newChat' },
  { id: 'palette', shift: false, key: 'k', label: 'keys.palette' },
  { id: 'search', shift: true, key: 'f', label: 'keys.search' },
  { id: 'settings', shift: false, key: ',', label: 'keys.settings' },
  { id: 'sheet', shift: false, key: '/', label: 'keys.sheet' },
];

/** Keys handled where they apply (composer, conversation), listed in the sheet too. */
export const OTHER_KEYS: readonly { keys: string; label: MessageKey }[] = [
  { keys: 'Esc', label: 'keys.stop' },
  { keys: 'Enter', label: 'keys.send' },
  { keys: 'Shift+Enter', label: 'keys.newline' },
];

export function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent);
}

type KeyLike = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey' | 'isComposing'>;

/** The shortcut a key press means, or null. Works on any keyboard layout for the letters (code). */
export function matchShortcut(e: KeyLike, mac: boolean): ShortcutId | null {
  if (e.isComposing || e.altKey) return null;
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  if (!mod) return null;
  const key = e.key.toLowerCase();
  const letter = /^Key([A-Z])$/.exec(e.code)?.[1]?.toLowerCase();
  for (const s of SHORTCUTS) {
    const hit =
      s.key.length === 1 && /[a-z]/.test(s.key) ? (letter ?? key) === s.key : key === s.key || (s.key === '/' && e.code === 'Slash');
    // Shift+/ is "?" on many layouts: Ctrl+/ also matches with Shift held.
    if (hit && (s.shift === e.shiftKey || s.key === '/')) return s.id;
  }
  return null;
}

/** `Ctrl+Shift+F` or `⌘⇧F`. */
export function formatShortcut(s: Pick<Shortcut, 'shift' | 'key'>, mac: boolean): string {
  const key = s.key.length === 1 ? s.key.toUpperCase() : s.key;
  if (mac) return `⌘${s.shift ? '⇧' : ''}${key}`;
  return `Ctrl+${s.shift ? 'Shift+' : ''}${key}`;
}
