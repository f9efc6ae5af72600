import { useSyncExternalStore } from 'react';
import { shell } from '../platform/shell-bridge';

/** `system` follows the OS (prefers-color-scheme; in the desktop app Electron's nativeTheme feeds it). */
export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const KEY = 'service.theme';
const listeners = new Set<() => void>();
const darkQuery = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null);

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return value === 'system' || value === 'light' || value === 'dark';
}

export function readChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(KEY);
    return isThemeChoice(stored) ? stored : 'system';
  } catch {
    return 'system';
  }
}

export function effectiveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}

function apply(): void {
  const choice = readChoice();
  const theme = effectiveTheme(choice, darkQuery()?.matches ?? false);
  document.documentElement.dataset.theme = theme;
  for (const listener of listeners) listener();
}

/** Sets the theme before the first render (no light flash) and follows the OS while `system`. */
export function initTheme(): void {
  apply();
  darkQuery()?.addEventListener('change', apply);
  // The desktop shell themes its own window parts (title bar, menus) the same way.
  void shell()?.theme?.set(readChoice());
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  void shell()?.theme?.set(choice);
  apply();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The user's choice and the theme in effect, re-rendered when either changes. */
export function useTheme(): { choice: ThemeChoice; theme: Theme; setChoice(choice: ThemeChoice): void } {
  const choice = useSyncExternalStore(subscribe, readChoice, () => 'system' as ThemeChoice);
  const theme = useSyncExternalStore(subscribe, () => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light') as Theme);
  return { choice, theme, setChoice: setThemeChoice };
}
