import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readIfExists, writeFileAtomic } from '../../backend/data/atomic-write.js';
import { normalizeFingerprint, PinBook } from './cert-pinning.js';
import type { RemoteSummary } from './remote-api.js';

/** Encrypts secrets before they touch the disk (safeStorage in the app, a test cipher under Node). */
export interface Cipher {
  encrypt(plain: string): Buffer;
  decrypt(encrypted: Buffer): string;
}

const RemoteSchema = z.strictObject({
  origin: z.string().regex(/^https?:\/\/[^/]+$/, 'must be http(s)://host[:port]'),
  /** Null only for a plain-http backend (loopback, or insecure confirmed by the user). */
  fingerprint: z
    .string()
    .refine((v) => normalizeFingerprint(v) === v, 'must be SHA256: and 32 hex pairs')
    .nullable(),
  node_id: z.string(),
  device_id: z.string().nullable(),
  display_name: z.string().nullable(),
  paired_at: z.string(),
  /** Base64 of the encrypted credential; null after a 401 cleared it (the backend forgot this device). */
  credential: z.string().nullable(),
});
export type RemoteEntry = z.infer<typeof RemoteSchema>;

const BookSchema = z.strictObject({
  version: z.literal(1),
  active: z.string(),
  remotes: z.array(RemoteSchema),
});

export const LOCAL = 'local';

/**
 * The remote backends this app paired with, one slot each (origin, pinned fingerprint, encrypted
 * credential), and which backend the window uses: `local` (the bundled backend, whose credential
 * stays in its own file) or a remote's origin. Stored as one JSON file, written atomically.
 */
export class RemoteBook {
  private remotes = new Map<string, RemoteEntry>();
  private activeKey = LOCAL;

  private constructor(
    private readonly file: string,
    private readonly cipher: Cipher,
  ) {}

  /** A missing file is an empty book; a damaged one is refused with the field named, never overwritten. */
  static async open(file: string, cipher: Cipher): Promise<RemoteBook> {
    const book = new RemoteBook(file, cipher);
    const text = await readIfExists(file);
    if (text === undefined) return book;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file}: not JSON (${(err as Error).message}); fix or delete the file`, { cause: err });
    }
    const parsed = BookSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${file}: ${issue.path.join('.') || 'file'}: ${issue.message}; fix or delete the file`);
    }
    for (const entry of parsed.data.remotes) book.remotes.set(entry.origin, entry);
    book.activeKey = book.remotes.has(parsed.data.active) ? parsed.data.active : LOCAL;
    return book;
  }

  get active(): string {
    return this.activeKey;
  }

  get(origin: string): RemoteEntry | undefined {
    return this.remotes.get(origin);
  }

  list(): RemoteSummary[] {
    return [...this.remotes.values()].map(({ credential, ...rest }) => ({ ...rest, has_credential: credential !== null }));
  }

  /** The pins Chromium's certificate check and the main process's requests go by. */
  pins(): PinBook {
    const book = new PinBook();
    for (const entry of this.remotes.values()) {
      if (entry.fingerprint) book.pin(entry.origin, entry.fingerprint, new Date(entry.paired_at));
    }
    return book;
  }

  /** Adds or replaces a remote after pairing (a re-pair replaces the old pin and credential). */
  async add(entry: Omit<RemoteEntry, 'credential'> & { credential: string }): Promise<void> {
    const stored = RemoteSchema.parse({ ...entry, credential: this.cipher.encrypt(entry.credential).toString('base64') });
    this.remotes.set(stored.origin, stored);
    await this.save();
  }

  readCredential(origin: string): string | null {
    const entry = this.remotes.get(origin);
    if (!entry?.credential) return null;
    return this.cipher.decrypt(Buffer.from(entry.credential, 'base64'));
  }

  async storeCredential(origin: string, credential: string): Promise<void> {
    const entry = this.require(origin);
    this.remotes.set(origin, { ...entry, credential: this.cipher.encrypt(credential).toString('base64') });
    await this.save();
  }

  async clearCredential(origin: string): Promise<void> {
    const entry = this.require(origin);
    this.remotes.set(origin, { ...entry, credential: null });
    await this.save();
  }

  /** Forgets a remote: pin and credential. Using it falls back to the local backend. */
  async forget(origin: string): Promise<boolean> {
    const had = this.remotes.delete(origin);
    if (this.activeKey === origin) this.activeKey = LOCAL;
    if (had) await this.save();
    return had;
  }

  async use(key: string): Promise<void> {
    if (key !== LOCAL) this.require(key);
    this.activeKey = key;
    await this.save();
  }

  private require(origin: string): RemoteEntry {
    const entry = this.remotes.get(origin);
    if (!entry) throw new Error(`no paired backend at ${origin}`);
    return entry;
  }

  private async save(): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const data = { version: 1, active: this.activeKey, remotes: [...this.remotes.values()] };
    await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  }
}
