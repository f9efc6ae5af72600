import { useEffect, useState } from 'react';
import type { Refusal } from '../../../app/ipc/contract.js';
import { shell } from '../platform/shell-bridge';
import { RemoteConnectDialog } from './remote-connect';

const openers = new Set<() => void>();

/** Opens "Connect to another backend…" from anywhere in the page (the Connection page's button). */
export function requestRemoteConnect(): void {
  for (const open of openers) open();
}

/**
 * Mounted once by the app in the desktop shell, whatever screen shows: answers the menu's
 * "Connect to Another Backend…" and reports a certificate Chromium refused for the remote in use.
 */
export function RemoteHost({ onRefused }: { onRefused(refusal: Refusal): void }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const bridge = shell();
    if (!bridge?.remote) return;
    const show = () => setOpen(true);
    openers.add(show);
    const offMenu = bridge.remote.onConnectRequested(show);
    const offRefused = bridge.remote.onRefused(onRefused);
    return () => {
      openers.delete(show);
      offMenu();
      offRefused();
    };
  }, [onRefused]);
  if (!shell()?.remote) return null;
  return <RemoteConnectDialog open={open} onClose={() => setOpen(false)} />;
}
