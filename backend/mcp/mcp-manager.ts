import type { DataPaths } from '../data/data-dir.js';
import { McpConnection, type ServerTool } from './mcp-connection.js';
import type { ServerStatus } from './mcp-status-api.js';
import { authKey, type McpOAuth } from './oauth-client.js';
import type { McpStore } from './mcp-store.js';
import { resolveServers, type ResolvedServer } from './server-config.js';

export type { ServerStatus };

export const IDLE_MS = 5 * 60_000;
export const CALL_TIMEOUT_MS = 60_000;
export const START_TIMEOUT_MS = 30_000;
/** A server that failed to start is not tried again by the next turns for this long (a tool call still retries at once). */
export const START_RETRY_MS = 30_000;

export interface ManagerOptions {
  store: McpStore;
  paths: DataPaths;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  idleMs?: number;
  callTimeoutMs?: number;
  startTimeoutMs?: number;
  /** `-shell-env`: the login shell's PATH for stdio servers. */
  shellPath?: () => Promise<string | undefined>;
  oauth?: McpOAuth;
}

/**
 * Running tool servers, shared across turns and workspaces: a global server used by two workspaces
 * runs once; a workspace server of the same name replaces it in that workspace only. A changed
 * entry (command, url, env, headers…) gets a fresh connection; the old one is stopped.
 */
export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  /** Scope+name → key of its current connection, to stop superseded ones. */
  private readonly current = new Map<string, string>();
  private closed = false;
  readonly callTimeoutMs: number;

  constructor(private readonly options: ManagerOptions) {
    this.callTimeoutMs = options.callTimeoutMs ?? CALL_TIMEOUT_MS;
    // After a sign-in, the servers that waited for it connect at once.
    if (options.oauth)
      options.oauth.onSignedIn = (key) =>
        this.reconnect((s) => s.transport !== 'stdio' && s.transport !== 'invalid' && authKey(s.url) === key);
  }

  /** Starts again the connections of the matching servers that are not running. */
  private reconnect(match: (server: ResolvedServer) => boolean): void {
    for (const conn of this.connections.values()) {
      if (match(conn.server) && conn.state !== 'ready') void conn.ensureStarted();
    }
  }

  /** "Sign out": forget the server's tokens and stop its connection (the next use asks to sign in). */
  async signOut(name: string, workspaceId?: string): Promise<boolean> {
    const server = (await this.servers(workspaceId)).find((s) => s.name === name);
    if (!server || server.transport === 'stdio' || server.transport === 'invalid' || !this.options.oauth) return false;
    await this.options.oauth.signOut(server.url);
    for (const conn of this.connections.values()) {
      const s = conn.server;
      if (s.transport !== 'stdio' && s.transport !== 'invalid' && authKey(s.url) === authKey(server.url)) await conn.stop();
    }
    return true;
  }

  servers(workspaceId?: string): Promise<ResolvedServer[]> {
    return resolveServers(this.options.store, this.options.paths, workspaceId);
  }

  /** The connection for a resolved server (created stopped; nothing starts until it is used). */
  connection(server: ResolvedServer): McpConnection {
    let conn = this.connections.get(server.key);
    if (conn) return conn;
    conn = new McpConnection(server, {
      env: this.options.env,
      idleMs: this.options.idleMs ?? IDLE_MS,
      startTimeoutMs: this.options.startTimeoutMs ?? START_TIMEOUT_MS,
      callTimeoutMs: this.callTimeoutMs,
      log: this.options.log,
      shellPath: this.options.shellPath,
      oauth: this.options.oauth,
    });
    if (!this.closed) this.connections.set(server.key, conn);
    const slot = server.key.slice(0, server.key.lastIndexOf('\u0000'));
    const previous = this.current.get(slot);
    this.current.set(slot, server.key);
    if (previous && previous !== server.key) {
      const old = this.connections.get(previous);
      this.connections.delete(previous);
      void old?.stop();
    }
    return conn;
  }

  /** The state a connection would report without starting anything. */
  peek(server: ResolvedServer): McpConnection | undefined {
    return this.connections.get(server.key);
  }

  /** Starts each given server that is not running yet (one connection per server, same order); waits for all to settle. */
  async startAll(servers: ResolvedServer[], signal?: AbortSignal): Promise<McpConnection[]> {
    const conns = servers.map((s) => this.connection(s));
    const now = Date.now();
    const due = conns.filter((c) => !(c.state === 'failed' && c.startFailedAt > 0 && now - c.startFailedAt < START_RETRY_MS));
    const settled = Promise.all(due.map((c) => c.ensureStarted()));
    if (!signal) await settled;
    else {
      await Promise.race([
        settled,
        new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      ]);
    }
    return conns;
  }

  async status(workspaceId?: string): Promise<ServerStatus[]> {
    const servers = await this.servers(workspaceId);
    const oauth = this.options.oauth;
    const signedIn = await Promise.all(
      servers.map((s) => (oauth && s.transport !== 'stdio' && s.transport !== 'invalid' ? oauth.store.signedIn(authKey(s.url)) : false)),
    );
    return servers.map((s, i) => {
      const conn = this.peek(s);
      const tools: ServerTool[] = conn?.tools ?? [];
      return {
        name: s.name,
        source: s.source,
        transport: s.transport,
        state: conn?.state ?? (s.transport === 'invalid' && !s.disabled ? 'failed' : 'stopped'),
        disabled: s.disabled,
        approval: s.approval,
        always_allow: s.alwaysAllow,
        tools: tools.map((t) => ({ name: t.name, description: t.description })),
        error: conn?.error ?? (s.transport === 'invalid' ? `invalid configuration: ${s.problem}` : null),
        pid: conn?.pid ?? null,
        auth_required: conn?.authorizeUrl !== undefined,
        authorize_url: conn?.authorizeUrl ?? null,
        signed_in: signedIn[i],
      };
    });
  }

  /** The workspace's enabled servers, started (prompts and resources are asked of running servers). */
  async started(workspaceId: string): Promise<McpConnection[]> {
    const servers = (await this.servers(workspaceId)).filter((s) => !s.disabled);
    return this.startAll(servers);
  }

  /** One enabled server of the workspace by name, started; undefined when there is none. */
  async startedOne(workspaceId: string, name: string): Promise<McpConnection | undefined> {
    const server = (await this.servers(workspaceId)).find((s) => s.name === name && !s.disabled);
    if (!server) return undefined;
    const conn = this.connection(server);
    await conn.ensureStarted();
    return conn;
  }

  /** Some running server announced a new tool list (notifications/tools/list_changed). */
  toolsChanged(): boolean {
    for (const conn of this.connections.values()) if (conn.toolsStale) return true;
    return false;
  }

  /** Starts one server now (the tool-servers page's "Connect"), waits until it is ready or failed. */
  async check(name: string, workspaceId?: string): Promise<ServerStatus | undefined> {
    const server = (await this.servers(workspaceId)).find((s) => s.name === name);
    if (!server) return undefined;
    if (!server.disabled) await this.connection(server).ensureStarted();
    return (await this.status(workspaceId)).find((s) => s.name === name);
  }

  /** Backend shutdown: signal every stdio server's group now, then close connections politely. */
  async shutdown(): Promise<void> {
    this.closed = true;
    const conns = [...this.connections.values()];
    this.connections.clear();
    for (const c of conns) c.killNow();
    await Promise.all(conns.map((c) => c.stop()));
  }
}
