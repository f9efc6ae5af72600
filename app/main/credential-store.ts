import { safeStorage } from 'electron';
import path from 'node:path';
import { CredentialSlots, LocalCredentialFile } from '../remote/credential-slots.js';
import type { Cipher, RemoteBook } from '../remote/remote-book.js';

/**
 * Credentials are encrypted with the OS keychain (safeStorage). Linux without a keyring falls back
 * to a hard-coded key ("basic_text"), which is no protection, so storing is refused there and the
 * renderer keeps the credential for the session only.
 */
function assertEncryption(): void {
  if (!safeStorage.isEncryptionAvailable()) throw new Error('the OS keychain is not available, the credential cannot be stored');
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
    throw new Error('no OS keyring (e.g. GNOME Keyring or KWallet) is running, the credential cannot be stored securely');
  }
}

export const safeStorageCipher: Cipher = {
  encrypt(plain) {
    assertEncryption();
    return safeStorage.encryptString(plain);
  },
  decrypt(encrypted) {
    assertEncryption();
    return safeStorage.decryptString(encrypted);
  },
};

/** Where the slots live: the local backend's `credential.enc` (unchanged) and the remotes' book. */
export function credentialFiles(userData: string): { local: string; remotes: string } {
  return { local: path.join(userData, 'credential.enc'), remotes: path.join(userData, 'remote-backends.json') };
}

/** One slot per backend: the local one in its own file, each remote in the book. */
export function createCredentialStore(userData: string, book: () => RemoteBook | undefined): CredentialSlots {
  return new CredentialSlots(new LocalCredentialFile(credentialFiles(userData).local, safeStorageCipher), book);
}

export type CredentialStore = CredentialSlots;
