import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { credentialFromHeaders } from '../auth/credential.js';
import { checkHostAndOrigin, type OriginPolicy } from '../http/guards.js';
import type { ApiError } from '../http/errors.js';
import type { Logger, LogEntry } from '../log/logger.js';
import type { PairingService } from '../pairing/pairing-service.js';
import {
  ClientMessageSchema,
  WS_MESSAGE_ROLES,
  WS_TOPIC_ROLES,
  type ClientMessage,
  type ConfigResource,
  type ServerMessage,
} from './ws-api.js';

interface Client {
  socket: WebSocket;
  /** The paired device whose credential opened the socket (closed when it is revoked). */
  deviceId: string;
  topics: Set<string>;
  /** Payload of the last ping; only a pong echoing it proves the client read up to that ping. */
  ping: Buffer | null;
  alive: boolean;
  /** Per-connection state of message handlers registered by other areas (chat resume). */
  state: Map<string, unknown>;
}

/** What a registered message handler sees of a connection. */
export interface WsConnection {
  send(data: string): void;
  state: Map<string, unknown>;
}

/** Client messages another area answers (chat `resume`); the hub itself answers the rest. */
type HandledMessage = Exclude<ClientMessage, { type: 'ping' | 'subscribe' | 'unsubscribe' }>;
export type WsMessageHandler<T extends HandledMessage['type'] = HandledMessage['type']> = (
  conn: WsConnection,
  msg: Extract<HandledMessage, { type: T }>,
) => void;

export const KEEPALIVE_MS = 30_000;
/** Bytes queued for one client beyond which it is dropped: a client that stops reading must not grow our memory. */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const CLOSE_CREDENTIAL_REVOKED = 4001;

function rejectUpgrade(socket: Duplex, status: number, error: ApiError | { code: string; message: string }): void {
  const body = JSON.stringify({ error: { code: error.code, message: error.message } });
  const reason = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `/ws`: authenticated before the upgrade (Host/Origin, then credential from the
 * `service_credential` query or the Authorization header); broadcasts config changes and logs.
 */
export class WsHub {
  /** Loaded on the first upgrade: most starts (and every cold start) never need it. */
  private wss: Promise<WebSocketServer> | undefined;
  private readonly clients = new Set<Client>();
  private readonly keepalive: NodeJS.Timeout;
  private readonly unsubscribeLog: () => void;
  private readonly handlers = new Map<string, WsMessageHandler>();

  private readonly maxBuffered: number;

  constructor(
    private readonly deps: {
      pairing: PairingService;
      logger: Logger;
      policy: OriginPolicy;
      version: string;
      /** Test knobs: shorter keepalive, smaller queue cap. */
      keepaliveMs?: number;
      maxBufferedBytes?: number;
    },
  ) {
    this.maxBuffered = deps.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.keepalive = setInterval(() => this.sweep(), deps.keepaliveMs ?? KEEPALIVE_MS);
    this.keepalive.unref();
    this.unsubscribeLog = deps.logger.subscribe((entry) => this.sendLog(entry));
    deps.pairing.onChange((event) => {
      if (event.type === 'unpaired') this.closeAll(CLOSE_CREDENTIAL_REVOKED, 'credential revoked');
      if (event.type === 'revoked') this.closeDevices(event.deviceIds);
    });
  }

  /** Handles the server's WebSocket upgrades; the function returned stops that (a restart hands the server on). */
  attach(server: Server | TlsServer): () => void {
    const listener = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head);
    server.on('upgrade', listener);
    return () => server.off('upgrade', listener);
  }

  get size(): number {
    return this.clients.size;
  }

  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/ws') return rejectUpgrade(socket, 404, { code: 'not_found', message: 'Not found.' });
    const verdict = checkHostAndOrigin(this.deps.policy, req.headers);
    if (!verdict.ok) return rejectUpgrade(socket, 403, verdict.error);
    const credential = url.searchParams.get('service_credential') ?? credentialFromHeaders(req.headers);
    const deviceId = this.deps.pairing.authenticate(credential ?? undefined);
    if (!deviceId) {
      return rejectUpgrade(socket, 401, { code: 'unauthorized', message: 'A valid credential is required.' });
    }
    this.wss ??= import('ws').then(({ WebSocketServer: Server }) => new Server({ noServer: true, maxPayload: 64 * 1024 }));
    void this.wss.then((wss) => wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, deviceId)));
  }

  private accept(socket: WebSocket, deviceId: string): void {
    // Revoked while the upgrade was being completed: never let the socket live.
    if (!this.deps.pairing.devices(undefined).some((d) => d.id === deviceId)) {
      socket.close(CLOSE_CREDENTIAL_REVOKED, 'credential revoked');
      return;
    }
    const client: Client = { socket, deviceId, topics: new Set(), ping: null, alive: true, state: new Map() };
    this.clients.add(client);
    socket.on('pong', (data) => {
      // An unsolicited pong (or an old one) says nothing about whether the client reads what we send.
      if (client.ping && data.equals(client.ping)) client.alive = true;
    });
    socket.on('close', () => this.clients.delete(client));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => this.onMessage(client, isBinary ? null : data.toString()));
    this.send(client, { type: 'hello', node_id: this.deps.pairing.nodeId, version: this.deps.version });
  }

  private onMessage(client: Client, text: string | null): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text ?? '');
    } catch {
      return this.send(client, { type: 'error', message: 'messages must be JSON objects' });
    }
    const parsed = ClientMessageSchema.safeParse(raw);
    if (!parsed.success) return this.send(client, { type: 'error', message: 'unknown message type' });
    const msg = parsed.data;
    if (!this.allowed(client, msg)) {
      return this.send(client, { type: 'error', code: 'owner_required', message: `Only an owner device can send ${this.describe(msg)}.` });
    }
    switch (msg.type) {
      case 'ping':
        return this.send(client, { type: 'pong' });
      case 'subscribe':
        for (const t of msg.topics) if (t === 'log') client.topics.add(t);
        return;
      case 'unsubscribe':
        for (const t of msg.topics) client.topics.delete(String(t));
        return;
      default: {
        const handler = this.handlers.get(msg.type);
        if (handler) return handler(this.connection(client), msg);
        this.send(client, { type: 'error', message: 'unknown message type' });
      }
    }
  }

  /** DESIGN 16 on the socket: the role is read per message, so it follows the stored device record. */
  private allowed(client: Client, msg: ClientMessage): boolean {
    const needs: string[] = [WS_MESSAGE_ROLES[msg.type]];
    if (msg.type === 'subscribe') for (const t of msg.topics) if (typeof t === 'string' && WS_TOPIC_ROLES[t]) needs.push(WS_TOPIC_ROLES[t]);
    return !needs.includes('owner') || this.deps.pairing.roleOf(client.deviceId) === 'owner';
  }

  private describe(msg: ClientMessage): string {
    return msg.type === 'subscribe'
      ? `subscribe to ${msg.topics.filter((t) => typeof t === 'string' && WS_TOPIC_ROLES[t]).join(', ')}`
      : msg.type;
  }

  private connection(client: Client): WsConnection {
    return { send: (data) => this.sendRaw(client, data), state: client.state };
  }

  /** Every send goes through here: a client with more than the cap still queued is dropped instead. */
  private sendRaw(client: Client, data: string): void {
    if (!this.clients.has(client)) return;
    if (client.socket.bufferedAmount + data.length > this.maxBuffered) {
      this.drop(client, `${(client.socket.bufferedAmount / 1048576).toFixed(1)} MiB waiting to be sent`);
      return;
    }
    client.socket.send(data);
  }

  private drop(client: Client, why: string): void {
    this.clients.delete(client);
    // terminate(): close() would queue a close frame behind the data the client is not reading.
    client.socket.terminate();
    this.deps.logger.info(`ws: closed a connection that stopped reading (${why})`);
  }

  /** Registers a client message type (e.g. chat `resume`). */
  onMessageType<T extends HandledMessage['type']>(type: T, handler: WsMessageHandler<T>): void {
    // Dispatch matches the type, so the handler gets its own variant.
    this.handlers.set(type, handler as unknown as WsMessageHandler);
  }

  /** Sends to every authenticated client what `render` returns for it (undefined skips it). */
  sendEach(render: (conn: WsConnection) => string | undefined): void {
    for (const client of this.clients) {
      const data = render(this.connection(client));
      if (data !== undefined) this.sendRaw(client, data);
    }
  }

  broadcast(message: ServerMessage): void {
    const data = JSON.stringify(message);
    for (const client of this.clients) this.sendRaw(client, data);
  }

  configChanged(resource: ConfigResource, id: string | null): void {
    this.broadcast({ type: 'config.changed', resource, id });
  }

  private sendLog(entry: LogEntry): void {
    if (this.clients.size === 0) return;
    const data = JSON.stringify({ type: 'log', ...entry });
    for (const client of this.clients) if (client.topics.has('log')) this.sendRaw(client, data);
  }

  private send(client: Client, message: ServerMessage): void {
    this.sendRaw(client, JSON.stringify(message));
  }

  private sweep(): void {
    for (const client of [...this.clients]) {
      if (!client.alive) {
        this.drop(client, 'no answer to the last ping');
        continue;
      }
      client.alive = false;
      client.ping = randomBytes(8);
      client.socket.ping(client.ping);
    }
  }

  /** Closes the sockets of revoked (or rotated) devices at once. */
  private closeDevices(deviceIds: readonly string[]): void {
    for (const client of this.clients) {
      if (!deviceIds.includes(client.deviceId)) continue;
      // Out of the set first: not one more broadcast reaches it, even before the peer acknowledges.
      this.clients.delete(client);
      client.socket.close(CLOSE_CREDENTIAL_REVOKED, 'credential revoked');
      setTimeout(() => client.socket.terminate(), 2000).unref();
    }
  }

  closeAll(code = 1001, reason = 'server shutting down'): void {
    for (const client of this.clients) client.socket.close(code, reason);
  }

  close(): void {
    clearInterval(this.keepalive);
    this.unsubscribeLog();
    for (const client of this.clients) client.socket.terminate();
    void this.wss?.then((wss) => wss.close());
  }
}
