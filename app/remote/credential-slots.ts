import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readIfExists, writeFileAtomic } from '../../backend/data/atomic-write.js';
import { LOCAL, type Cipher, type RemoteBook } from './remote-book.js';

/** One credential, encrypted, in its own file: the bundled backend's slot (its format predates remotes). */
export class LocalCredentialFile {
  constructor(
    private readonly file: string,
    private readonly cipher: Cipher,
  ) {}

  async store(credential: string): Promise<void> {
    const encrypted = this.cipher.encrypt(credential);
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    // Base64 text: the ciphertext is binary and the shared readers are text-based.
    await writeFileAtomic(this.file, `${encrypted.toString('base64')}\n`, { mode: 0o600 });
  }

  async read(): Promise<string | null> {
    const text = await readIfExists(this.file);
    if (text === undefined) return null;
    return this.cipher.decrypt(Buffer.from(text.trim(), 'base64'));
  }

  async clear(): Promise<void> {
    await fs.rm(this.file, { force: true });
  }
}

/**
 * The renderer's `credential:*` calls act on the backend the window uses: the local file, or the
 * active remote's slot in the book. So the renderer's pairing and 401 handling work unchanged.
 */
export class CredentialSlots {
  constructor(
    private readonly local: LocalCredentialFile,
    private readonly book: () => RemoteBook | undefined,
  ) {}

  private activeRemote(): { book: RemoteBook; origin: string } | undefined {
    const book = this.book();
    return book && book.active !== LOCAL ? { book, origin: book.active } : undefined;
  }

  async store(credential: string): Promise<void> {
    const remote = this.activeRemote();
    if (remote) await remote.book.storeCredential(remote.origin, credential);
    else await this.local.store(credential);
  }

  async read(): Promise<string | null> {
    const remote = this.activeRemote();
    return remote ? remote.book.readCredential(remote.origin) : this.local.read();
  }

  async clear(): Promise<void> {
    const remote = this.activeRemote();
    if (remote) await remote.book.clearCredential(remote.origin);
    else await this.local.clear();
  }
}
