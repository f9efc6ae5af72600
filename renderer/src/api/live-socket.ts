import type { ServerMessage } from '../../../backend/ws/ws-api.js';

export type SocketState =
  { kind: 'connecting' } | { kind: 'open' } | { kind: 'waiting'; retryAt: number; attempt: number } | { kind: 'closed' };

export type LiveMessage = ServerMessage;

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 15_000;
const PING_MS = 20_000;

/**
 * The `/ws` connection: reconnects with exponential backoff (with jitter) after any loss and
 * reports its state; `onLost` lets the session re-check the credential over HTTP, since a
 * browser cannot see the 401 of a refused upgrade.
 */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pinger: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private readonly messageListeners = new Set<(m: LiveMessage) => void>();
  private readonly stateListeners = new Set<(s: SocketState) => void>();
  private topics = new Set<string>();
  state: SocketState = { kind: 'connecting' };
  /** The last `hello` (node id and version), kept for views that mount later. */
  hello: Extract<LiveMessage, { type: 'hello' }> | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly credential: string,
    private readonly onLost: () => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    this.socket?.close(1000, 'client closing');
    this.socket = null;
    this.setState({ kind: 'closed' });
  }

  /** Reconnect now (the user pressed "Retry"). */
  retryNow(): void {
    if (this.state.kind !== 'waiting') return;
    clearTimeout(this.timer);
    this.open();
  }

  onMessage(listener: (m: LiveMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onState(listener: (s: SocketState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  subscribe(topic: string): void {
    this.topics.add(topic);
    this.send({ type: 'subscribe', topics: [topic] });
  }

  unsubscribe(topic: string): void {
    this.topics.delete(topic);
    this.send({ type: 'unsubscribe', topics: [topic] });
  }

  /** Sends a JSON message when the socket is open (dropped otherwise: callers resend on `open`). */
  send(message: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private setState(state: SocketState): void {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private open(): void {
    this.setState({ kind: 'connecting' });
    const url = new URL('/ws', this.baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('service_credential', this.credential);
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setState({ kind: 'open' });
      if (this.topics.size) this.send({ type: 'subscribe', topics: [...this.topics] });
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: 'ping' }), PING_MS);
    };
    socket.onmessage = (event) => {
      let message: LiveMessage;
      try {
        message = JSON.parse(String(event.data)) as LiveMessage;
      } catch {
        return;
      }
      if (message.type === 'hello') this.hello = message;
      for (const l of this.messageListeners) l(message);
    };
    socket.onclose = () => {
      clearInterval(this.pinger);
      if (this.socket !== socket || this.stopped) return;
      this.socket = null;
      this.onLost();
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
      this.attempt += 1;
      this.setState({ kind: 'waiting', retryAt: Date.now() + delay, attempt: this.attempt });
      this.timer = setTimeout(() => this.open(), delay);
    };
  }
}
