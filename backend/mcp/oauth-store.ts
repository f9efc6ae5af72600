import { readJsonFile, writeJsonFile } from '../data/document-file.js';

// DESIGN 9: OAuth tokens of remote tool servers live in selfhost/mcp_tokens.json (0600, written
// atomically), keyed by the server URL without query or fragment. Nothing here is ever logged or
// sent to a client: the API only says whether a server is signed in.

export interface StoredAuth {
  /** What dynamic registration returned, and for which redirect URI (a new port means registering again). */
  client?: Record<string, unknown>;
  redirect_uri?: string;
  tokens?: Record<string, unknown>;
}

type Doc = { version: 1; servers: Record<string, StoredAuth> };

export class McpTokenStore {
  private doc?: Promise<Doc>;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  private load(): Promise<Doc> {
    this.doc ??= readJsonFile(this.file).then((read) => {
      const value = read.ok && read.exists ? (read.value as Partial<Doc>) : undefined;
      const servers = value && typeof value.servers === 'object' && value.servers !== null ? value.servers : {};
      return { version: 1 as const, servers };
    });
    return this.doc;
  }

  async get(key: string): Promise<StoredAuth | undefined> {
    return (await this.load()).servers[key];
  }

  async signedIn(key: string): Promise<boolean> {
    return !!(await this.get(key))?.tokens;
  }

  /** Changes one server's entry and writes the file; writes run one after the other. */
  async update(key: string, change: (entry: StoredAuth) => StoredAuth | undefined): Promise<void> {
    const doc = await this.load();
    const next = change({ ...doc.servers[key] });
    if (next && Object.keys(next).length > 0) doc.servers[key] = next;
    else delete doc.servers[key];
    const write = this.writing.then(() => writeJsonFile(this.file, doc));
    this.writing = write.catch(() => {});
    await write;
  }
}
