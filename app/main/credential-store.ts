import { safeStorage } from 'electron';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readIfExists, writeFileAtomic } from '../../backend/data/atomic-write.js';

/**
 * Keeps the renderer's service credential encrypted with the OS keychain (safeStorage). Linux
 * without a keyring falls back to a hard-coded key ("basic_text"), which is no protection, so
 * storing is refused there and the renderer keeps the credential for the session only.
 */
export class CredentialStore {
  constructor(private readonly file: string) {}

  private assertEncryption(): void {
    if (!safeStorage.isEncryptionAvailable()) throw new Error('the OS keychain is not available, the credential cannot be stored');
    if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
      throw new Error('no OS keyring (e.g. GNOME Keyring or KWallet) is running, the credential cannot be stored securely');
    }
  }

  async store(credential: string): Promise<void> {
    this.assertEncryption();
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    // Base64 text: the ciphertext is binary and the shared readers are text-based.
    await writeFileAtomic(this.file, `${safeStorage.encryptString(credential).toString('base64')}\n`, { mode: 0o600 });
  }

  async read(): Promise<string | null> {
    const text = await readIfExists(this.file);
    if (text === undefined) return null;
    this.assertEncryption();
    return safeStorage.decryptString(Buffer.from(text.trim(), 'base64'));
  }

  async clear(): Promise<void> {
    await fs.rm(this.file, { force: true });
  }
}
