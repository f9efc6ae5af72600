import { useT } from '../i18n/i18n';
import { Dialog } from '../ui/controls';
import { DesktopSettings } from './desktop-settings';
import { formatShortcut, isMac, OTHER_KEYS, SHORTCUTS } from './shortcuts';

/** Ctrl/Cmd+/: every shortcut, in the user's language and with the platform's modifier. */
export function ShortcutSheet(props: { open: boolean; onClose(): void }) {
  const t = useT();
  const mac = isMac();
  const rows = [...SHORTCUTS.map((s) => ({ keys: formatShortcut(s, mac), label: s.label })), ...OTHER_KEYS];
  return (
    <Dialog title={t('keys.title')} open={props.open} onClose={props.onClose}>
      <div className="dialog-body">
        <table className="table shortcut-table">
          <tbody>
            {rows.map((r) => (
              <tr key={r.label}>
                <td>{t(r.label)}</td>
                <td className="shortcut-keys">
                  <kbd>{r.keys}</kbd>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <DesktopSettings />
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}
