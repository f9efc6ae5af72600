import { dialog, type BrowserWindow, type MessageBoxOptions } from 'electron';
import { EVENTS } from '../ipc/contract.js';
import type { LogBuffer } from '../logs/log-buffer.js';
import { pairingBound, resetPairingForApp, type PendingResetCode } from '../pairing/reset-flow.js';
import type { BackendSupervisor } from '../supervisor/backend-supervisor.js';
import { whenLoaded } from './page-load.js';

export interface ResetMenuDeps {
  supervisor: BackendSupervisor;
  log: LogBuffer;
  dataDir: string;
  pending: PendingResetCode;
  /** The window, opened when there is none. */
  window(): BrowserWindow;
}

async function box(window: BrowserWindow, options: MessageBoxOptions): Promise<number> {
  return (await dialog.showMessageBox(window, options)).response;
}

/**
 * File → Reset Pairing…: asks first, then resets the data folder's pairing; the renderer (on its
 * pairing screen, where a session whose credential was refused returns) takes the new code and
 * pairs the app with it.
 */
export async function resetPairingFromMenu(deps: ResetMenuDeps): Promise<void> {
  const window = deps.window();
  const state = deps.supervisor.state;
  try {
    if (state.status !== 'ready') throw new Error(`the backend is not running (${state.status}); try File → Restart Backend`);
    if (!(await pairingBound(state.url))) {
      await box(window, {
        type: 'info',
        message: 'Nothing to reset',
        detail: 'The backend is not paired yet: pair on the app’s pairing screen.',
      });
      return;
    }
    const confirmed = await box(window, {
      type: 'warning',
      buttons: ['Reset Pairing', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      message: 'Reset pairing?',
      detail:
        `Every browser or app paired with the backend for ${deps.dataDir} loses access and has to pair again. ` +
        (state.external
          ? `The backend runs outside the app (pid ${state.pid}): its new pairing code appears in its own output.`
          : 'This app then pairs itself with the new code.'),
    });
    if (confirmed !== 0) return;
    const result = await resetPairingForApp({ dataDir: deps.dataDir, log: deps.log, state });
    deps.pending.set(result.code);
    whenLoaded(window.webContents, () => window.webContents.send(EVENTS.pairingResetDone, null));
  } catch (err) {
    await box(window, { type: 'error', message: 'Pairing could not be reset', detail: (err as Error).message });
  }
}
