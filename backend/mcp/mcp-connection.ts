import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolCallOutcome } from '../tools/tool-source.js';
import { VERSION } from '../version.js';
import { childEnv } from './child-env.js';
import { resolveCommand, spawnLine } from './command-resolve.js';
import { describeExit, describeNotFound, describeRemoteError, displayUrl, ToolServerError } from './mcp-errors.js';
import { loadClient, loadSse, loadStreamableHttp, SDK_CONNECTION_CLOSED, SDK_REQUEST_TIMEOUT } from './mcp-sdk.js';
import type { ResolvedServer } from './server-config.js';
import type { McpOAuth } from './oauth-client.js';
import { GuardedStdioTransport } from './stdio-transport.js';
import { cutResult, resultText } from './tool-result.js';

import type { ServerState } from './mcp-status-api.js';

export type { ServerState };

export interface ServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ConnectionOptions {
  env: NodeJS.ProcessEnv;
  idleMs: number;
  startTimeoutMs: number;
  callTimeoutMs: number;
  log: (line: string) => void;
  /** The login shell's PATH (`-shell-env`), read once on first use. */
  shellPath?: () => Promise<string | undefined>;
  /** OAuth sign-in for remote servers that ask for it (none configured: a 401 is just an error). */
  oauth?: McpOAuth;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
/** Log lines stay single lines (stderr tails joined with " | "). */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' | ').slice(0, 400);

/** One tool server: started on first use, reused, stopped when idle; explains its failures in words. */
export class McpConnection {
  state: ServerState = 'stopped';
  tools: ServerTool[] = [];
  error: string | null = null;
  /** Set while a remote server waits for the user to sign in (OAuth): where to send the browser. */
  authorizeUrl?: string;
  /** When the last start attempt failed (a crash after a good start does not count). */
  startFailedAt = 0;
  private client?: Client;
  /** Set by notifications/tools/list_changed; cleared when the tools are listed again. */
  toolsStale = false;
  private transport?: Transport;
  private starting?: Promise<void>;
  private idleTimer?: NodeJS.Timeout;
  private inflight = 0;

  constructor(
    readonly server: ResolvedServer,
    private readonly options: ConnectionOptions,
  ) {}

  get pid(): number | undefined {
    return this.server.transport === 'stdio' ? (this.transport as GuardedStdioTransport | undefined)?.pid : undefined;
  }

  /** Starts the server unless it is ready (a failed or stopped one is started again). Never rejects. */
  ensureStarted(): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<void> {
    const { server, options } = this;
    this.state = 'starting';
    this.error = null;
    this.authorizeUrl = undefined;
    if (server.transport === 'invalid') return this.fail(new ToolServerError(`invalid configuration: ${server.problem}`, 'config'));
    let transport: Transport | undefined;
    try {
      // The SDK loads while the login shell is asked for its PATH and the server boots.
      const loadingClient = loadClient();
      loadingClient.catch(() => {});
      if (server.transport === 'stdio') {
        const env = childEnv(options.env, server.env, { path: await options.shellPath?.() });
        const resolved = resolveCommand(server.command, { platform: process.platform, env, cwd: server.cwd });
        if (!resolved.found) {
          this.startFailedAt = Date.now();
          return this.fail(describeNotFound(server.command, resolved.searched));
        }
        const line = spawnLine(resolved.file, server.args, process.platform, env);
        // Spawn first: the server boots while the SDK is being imported.
        const stdio = new GuardedStdioTransport({ ...line, env, cwd: server.cwd });
        transport = stdio;
        this.transport = stdio;
        void stdio.start().catch(() => {});
      }
      const Client = await loadingClient;
      if (server.transport !== 'stdio') {
        const requestInit = { headers: server.headers };
        const url = new URL(server.url);
        // A configured Authorization header is the user's choice of credential: no OAuth then.
        const ownAuth = Object.keys(server.headers).some((h) => h.toLowerCase() === 'authorization');
        const authProvider = ownAuth
          ? undefined
          : options.oauth?.provider(server.url, (authorizeUrl) => (this.authorizeUrl = authorizeUrl));
        const init = { requestInit, authProvider };
        transport = server.transport === 'sse' ? new (await loadSse())(url, init) : new (await loadStreamableHttp())(url, init);
      }
      if (!transport) throw new ToolServerError('no transport for this server', 'config');
      // list_changed (DESIGN 9): the tool list is fetched again before the next model request.
      const client = new Client(
        { name: 'service-desktop', version: VERSION },
        { capabilities: {}, listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => (this.toolsStale = true) } } },
      );
      this.transport = transport;
      this.client = client;
      await client.connect(transport, { timeout: options.startTimeoutMs });
      const tools = client.getServerCapabilities()?.tools ? await listAllTools(client, options.startTimeoutMs) : [];
      if (this.transport !== transport) return; // stopped while starting
      client.onclose = () => this.closedUnexpectedly(transport!);
      this.tools = tools;
      this.state = 'ready';
      options.log(`tool server ${server.name} ready (${tools.length} tools)`);
      this.touch();
    } catch (err) {
      if (this.transport !== transport) return;
      this.startFailedAt = Date.now();
      await this.fail(this.explain(err, transport, 'start'));
    }
  }

  private async fail(error: ToolServerError): Promise<void> {
    this.state = 'failed';
    this.error = error.message;
    this.options.log(`tool server ${this.server.name} failed: ${oneLine(error.message)}`);
    await this.closeTransport();
  }

  /** The server went away on its own (crash, killed, remote closed). */
  private closedUnexpectedly(transport: Transport): void {
    if (this.transport !== transport || this.state !== 'ready') return;
    const error = this.explain(new Error('connection closed'), transport, 'run');
    this.state = 'failed';
    this.error = error.message;
    this.options.log(`tool server ${this.server.name} stopped: ${oneLine(error.message)}`);
    this.transport = undefined;
    this.client = undefined;
  }

  private explain(err: unknown, transport: Transport | undefined, phase: 'start' | 'run'): ToolServerError {
    if (err instanceof ToolServerError) return err;
    // The SDK asked the user to sign in (redirectToAuthorization) and then gave up on this request.
    if (this.authorizeUrl) {
      return new ToolServerError('needs sign-in: this server asks you to sign in (OAuth); use "Sign in" on the tool servers page', 'auth');
    }
    // The server answered 401 and the SDK's OAuth client could not start a sign-in with it.
    if (typeof (err as { toResponseObject?: unknown })?.toResponseObject === 'function' && this.server.transport !== 'stdio') {
      const why = (err as Error).message || 'the server offers no sign-in this app can use';
      const url = this.server.transport === 'invalid' ? '' : ` from ${displayUrl(this.server.url)}`;
      return new ToolServerError(`HTTP 401 (unauthorized: check the headers; sign-in failed: ${why})${url}`, 'http');
    }
    const code = (err as { code?: unknown })?.code;
    if (code === SDK_REQUEST_TIMEOUT && phase === 'start') {
      return new ToolServerError(`timeout: the server did not answer within ${seconds(this.options.startTimeoutMs)}`, 'timeout');
    }
    if (this.server.transport === 'stdio') {
      const stdio = transport as GuardedStdioTransport | undefined;
      if (stdio?.exit) return describeExit(this.server.command, stdio.exit, stdio.stderrLines());
      if (code === SDK_CONNECTION_CLOSED) return describeExit(this.server.command, undefined, stdio?.stderrLines() ?? []);
      return new ToolServerError((err as Error)?.message ?? String(err), 'protocol');
    }
    if (this.server.transport === 'invalid') return new ToolServerError(this.server.problem, 'config');
    return describeRemoteError(this.server.url, err);
  }

  /** The tools as the server lists them now: listed again after it announced a change. */
  async freshTools(): Promise<ServerTool[]> {
    const client = this.client;
    if (this.state !== 'ready' || !client || !this.toolsStale) return this.tools;
    this.toolsStale = false;
    try {
      this.tools = await listAllTools(client, this.options.startTimeoutMs);
      this.options.log(`tool server ${this.server.name}: tool list changed (${this.tools.length} tools)`);
    } catch {
      // Keep the old list; a broken connection shows up at the next call.
    }
    return this.tools;
  }

  /**
   * Runs a request of the MCP client (prompts, resources) on the started server, counting as use
   * (no idle stop meanwhile). Throws the server's failure in words when it is not available.
   */
  async request<T>(work: (client: Client) => Promise<T>): Promise<T> {
    await this.ensureStarted();
    const client = this.client;
    if (this.state !== 'ready' || !client) throw new ToolServerError(this.error ?? 'the server is not running', 'connect');
    this.inflight++;
    clearTimeout(this.idleTimer);
    try {
      return await work(client);
    } finally {
      this.inflight--;
      this.touch();
    }
  }

  /** What the server offers besides tools (from its initialize answer). */
  offers(feature: 'prompts' | 'resources'): boolean {
    return this.state === 'ready' && !!this.client?.getServerCapabilities()?.[feature];
  }

  /** Runs one tool call; every failure becomes an error result, never a throw. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    await this.ensureStarted();
    const { client, transport } = this;
    if (this.state !== 'ready' || !client) {
      return { ok: false, content: `The tool server ${this.server.name} is not available: ${this.error}`, errorCode: 'tool_error' };
    }
    this.inflight++;
    clearTimeout(this.idleTimer);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.options.callTimeoutMs, signal });
      const text = cutResult(resultText(result));
      return result.isError
        ? { ok: false, content: text || 'The tool reported an error.', errorCode: 'tool_error' }
        : { ok: true, content: text };
    } catch (err) {
      if (signal.aborted) return { ok: false, content: 'The tool call was cancelled.', errorCode: 'cancelled' };
      const code = (err as { code?: unknown })?.code;
      if (code === SDK_REQUEST_TIMEOUT) {
        return { ok: false, content: `The tool call timed out after ${seconds(this.options.callTimeoutMs)}.`, errorCode: 'tool_error' };
      }
      if (code === SDK_CONNECTION_CLOSED || this.transport !== transport || this.state !== 'ready') {
        // Let the close handler record why the server went away before describing it.
        await new Promise((r) => setImmediate(r));
        const why = this.error ?? this.explain(err, transport, 'run').message;
        return { ok: false, content: `The tool server ${this.server.name} stopped during the call: ${why}`, errorCode: 'tool_error' };
      }
      // A remote server that cannot be reached (or lost our session) is reconnected by the next call;
      // JSON-RPC errors (negative codes: bad arguments, unknown tool) leave the connection as it is.
      if (this.server.transport !== 'stdio' && !(typeof code === 'number' && code < 0)) {
        const error = this.explain(err, transport, 'run');
        await this.fail(error);
        return {
          ok: false,
          content: `The tool server ${this.server.name} failed during the call: ${error.message}`,
          errorCode: 'tool_error',
        };
      }
      return { ok: false, content: cutResult(`The tool call failed: ${(err as Error)?.message ?? String(err)}`), errorCode: 'tool_error' };
    } finally {
      this.inflight--;
      this.touch();
    }
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    if (this.state !== 'ready' || this.inflight > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.inflight === 0 && this.state === 'ready') {
        this.options.log(`tool server ${this.server.name} idle, stopping`);
        void this.stop();
      }
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  private async closeTransport(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (client) await client.close().catch(() => {});
    else if (transport) await transport.close().catch(() => {});
  }

  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    if (this.state === 'ready' || this.state === 'starting') this.state = 'stopped';
    await this.closeTransport();
  }

  /** Process exit: signal a stdio server's group at once, without waiting. */
  killNow(): void {
    clearTimeout(this.idleTimer);
    if (this.server.transport === 'stdio') (this.transport as GuardedStdioTransport | undefined)?.killNow();
  }
}

async function listAllTools(client: Client, timeout: number): Promise<ServerTool[]> {
  const tools: ServerTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    for (const t of page.tools) {
      tools.push({ name: t.name, description: t.description ?? t.title ?? '', inputSchema: t.inputSchema as Record<string, unknown> });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
