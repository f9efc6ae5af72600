/**
 * `eth_subscribe("newHeads")` over a WebSocket (facts: knowledge-web-chain.md §8): calls `onHead`
 * with each new header's number and hash; `onClose` once when the connection ends or the node
 * refuses the subscription, after which the follower polls instead.
 */
import WebSocket from 'ws';

export interface HeadEvents {
  onHead: (head: { number: number; hash: string }) => void;
  onClose: (why: string) => void;
}

export class HeadSubscription {
  private readonly socket: WebSocket;
  private closed = false;
  /** True once the node accepted the subscription and until the connection ends. */
  live = false;

  constructor(url: string, events: HeadEvents) {
    this.socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    const end = (why: string) => {
      if (this.closed) return;
      this.closed = true;
      this.live = false;
      this.socket.removeAllListeners();
      this.socket.on('error', () => {});
      this.socket.terminate();
      events.onClose(why);
    };
    this.socket.on('open', () => {
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    this.socket.on('message', (data) => {
      let msg: { id?: number; error?: { message?: string }; method?: string; params?: { result?: { number?: string; hash?: string } } };
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (msg.id === 1 && msg.error) return end(`the node refused eth_subscribe: ${msg.error.message ?? 'unknown error'}`);
      if (msg.id === 1) this.live = true;
      const head = msg.method === 'eth_subscription' ? msg.params?.result : undefined;
      if (head?.number && head.hash) events.onHead({ number: Number(BigInt(head.number)), hash: head.hash });
    });
    this.socket.on('error', (err) => end(err.message));
    this.socket.on('close', () => end('connection closed'));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.removeAllListeners();
    this.socket.on('error', () => {});
    this.socket.close();
  }
}
