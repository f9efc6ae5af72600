import { useEffect, useState } from 'react';
import { useT } from '../i18n/i18n';
import type { Route } from '../nav/routes';
import { shell } from '../platform/shell-bridge';
import { sendCommand } from '../nav/app-commands';
import { CommandPalette } from './command-palette';
import { ShortcutSheet } from './shortcut-sheet';
import { formatShortcut, isMac, matchShortcut, SHORTCUTS } from './shortcuts';

/** The app-wide shortcuts, the palette and the sheet, with buttons that make them discoverable. */
export function KeyboardLayer(props: { navigate(route: Route): void }) {
  const t = useT();
  const [palette, setPalette] = useState(false);
  const [sheet, setSheet] = useState(false);
  const { navigate } = props;

  useEffect(() => {
    const mac = isMac();
    const onKey = (e: KeyboardEvent) => {
      const id = matchShortcut(e, mac);
      if (!id) return;
      e.preventDefault();
      switch (id) {
        case 'palette':
          setSheet(false);
          setPalette((open) => !open);
          return;
        case 'sheet':
          setPalette(false);
          setSheet((open) => !open);
          return;
        case 'newChat':
          navigate('chat');
          sendCommand({ type: 'new-chat' });
          return;
        case 'search':
          navigate('chat');
          sendCommand({ type: 'focus-search' });
          return;
        case 'settings':
          navigate('providers');
          return;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);

  // The desktop shell's tray (New chat) and quick-ask window (open in the main window).
  useEffect(
    () =>
      shell()?.desktop?.onCommand((command) => {
        navigate('chat');
        sendCommand(command);
      }),
    [navigate],
  );

  const mac = isMac();
  const keyOf = (id: string) =>
    formatShortcut(
      SHORTCUTS.find((s) => s.id === id)!,
      mac,
    );
  return (
    <>
      <div className="keyboard-buttons">
        <button
          type="button"
          className="btn btn-small btn-ghost-dark"
          onClick={() => setPalette(true)}
          aria-keyshortcuts={mac ? 'Meta+K' : 'Control+K'}
        >
          <span className="kb-label">{t('keys.palette')}</span> <kbd>{keyOf('palette')}</kbd>
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost-dark"
          onClick={() => setSheet(true)}
          aria-keyshortcuts={mac ? 'Meta+/' : 'Control+/'}
        >
          <span className="kb-label">{t('keys.open')}</span> <kbd>{keyOf('sheet')}</kbd>
        </button>
      </div>
      {palette && <CommandPalette open onClose={() => setPalette(false)} navigate={navigate} openSheet={() => setSheet(true)} />}
      <ShortcutSheet open={sheet} onClose={() => setSheet(false)} />
    </>
  );
}
