import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolCallOutcome } from '../tools/tool-source.js';
import { VERSION } from '../version.js';
import { describeExit, describeRemoteError, ToolServerError } from './mcp-errors.js';
import { loadClient, loadSse, loadStreamableHttp, SDK_CONNECTION_CLOSED, SDK_REQUEST_TIMEOUT } from './mcp-sdk.js';
import { serverEnv } from './orphan-guard.js';
import type { ResolvedServer } from './server-config.js';
import { GuardedStdioTransport } from './stdio-transport.js';
import { cutResult, resultText } from './tool-result.js';

export type ServerState = 'stopped' | 'starting' | 'ready' | 'failed';

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
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
/** Log lines stay single lines (stderr tails joined with " | "). */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' | ').slice(0, 400);

/** One tool server: started on first use, reused, stopped when idle; explains its failures in words. */
export class McpConnection {
  state: ServerState = 'stopped';
  tools: ServerTool[] = [];
  error: string | null = null;
  /** When the last start attempt failed (a crash after a good start does not count). */
  startFailedAt = 0;
  private client?: Client;
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
    if (server.transport === 'invalid') return this.fail(new ToolServerError(`invalid configuration: ${server.problem}`, 'config'));
    let transport: Transport | undefined;
    try {
      if (server.transport === 'stdio') {
        // Spawn first: the server boots while the SDK is being imported.
        const stdio = new GuardedStdioTransport({
          command: server.command,
          args: server.args,
          env: serverEnv(options.env, server.env),
          cwd: server.cwd,
        });
        transport = stdio;
        this.transport = stdio;
        void stdio.start().catch(() => {});
      }
      const Client = await loadClient();
      if (server.transport !== 'stdio') {
        const requestInit = { headers: server.headers };
        const url = new URL(server.url);
        transport =
          server.transport === 'sse' ? new (await loadSse())(url, { requestInit }) : new (await loadStreamableHttp())(url, { requestInit });
      }
      if (!transport) throw new ToolServerError('no transport for this server', 'config');
      const client = new Client({ name: 'service-desktop', version: VERSION }, { capabilities: {} });
      this.transport = transport;
      this.client = client;
      await client.connect(transport, { timeout: options.startTimeoutMs });
      const tools: ServerTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: options.startTimeoutMs });
        for (const t of page.tools) {
          tools.push({ name: t.name, description: t.description ?? t.title ?? '', inputSchema: t.inputSchema as Record<string, unknown> });
        }
        cursor = page.nextCursor;
      } while (cursor);
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
