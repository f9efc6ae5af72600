import { randomUUID } from 'node:crypto';
import { dataPaths, prepareDataDir } from '../data/data-dir.js';
import { loadPairingFile, savePairingFile } from '../pairing/pairing-store.js';

/** `reset-pairing`: forgets every device's credential; a running service notices, a stopped one logs a code at start. */
export async function resetPairing(dataDir: string): Promise<string> {
  const paths = dataPaths(dataDir);
  await prepareDataDir(paths);
  const state = await loadPairingFile(paths.pairing, randomUUID);
  // Every device's credential goes: a running service notices and closes their sockets.
  await savePairingFile(paths.pairing, { ...state, devices: [], paired_at: null, display_name: null });
  return `pairing reset for ${dataDir}; a new pairing code is logged by the service`;
}
