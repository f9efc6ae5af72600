import type { ResumeMessage } from './chat-api.js';
import type { TurnFrameBody } from './chat-types.js';

/** What turn frames need of one WebSocket client (the hub in ws/ provides it; chat sits below it). */
export interface FrameClient {
  send(data: string): void;
  /** Per-connection state the chat keeps (first live seq per turn). */
  state: Map<string, unknown>;
}

/** What turn frames need of the WebSocket hub: send to every client, hear `resume`. */
export interface FrameHub {
  sendEach(render: (conn: FrameClient) => string | undefined): void;
  onMessageType(type: 'resume', handler: (conn: FrameClient, msg: ResumeMessage) => void): void;
}

const LIVE_FROM = 'chat.liveFrom';
/** Finished turns stay resumable this long (a page reload, a laptop waking up). */
const KEEP_FINISHED_MS = 10 * 60_000;
const MAX_FINISHED = 200;
/** Frames of finished turns kept in memory at most (the oldest go first). */
const MAX_FINISHED_BYTES = 32 * 1024 * 1024;

/** First seq each connection received live, per turn: a resume replays only what came before it. */
function liveFrom(conn: FrameClient): Map<string, number> {
  let map = conn.state.get(LIVE_FROM) as Map<string, number> | undefined;
  if (!map) {
    map = new Map();
    conn.state.set(LIVE_FROM, map);
  }
  return map;
}

/** The frames of one turn: numbered from 1, kept for resume, sent to every authenticated client. */
export class TurnChannel {
  private readonly frames: string[] = [];
  finishedAt: number | null = null;
  /** Characters held in `frames`. */
  bytes = 0;

  constructor(
    readonly ids: { workspace_id: string; session_id: string; turn_id: string },
    private readonly ws: FrameHub,
  ) {}

  get lastSeq(): number {
    return this.frames.length;
  }

  emit(body: TurnFrameBody): void {
    const seq = this.frames.length + 1;
    const data = JSON.stringify({ ...body, ...this.ids, seq });
    this.frames.push(data);
    this.bytes += data.length;
    const turnId = this.ids.turn_id;
    this.ws.sendEach((conn) => {
      const map = liveFrom(conn);
      if (!map.has(turnId)) {
        if (map.size >= 64) map.delete(map.keys().next().value as string);
        map.set(turnId, seq);
      }
      return data;
    });
  }

  /** Frames after `afterSeq` this connection has not received live. */
  replay(conn: FrameClient, afterSeq: number): void {
    const until = liveFrom(conn).get(this.ids.turn_id) ?? this.frames.length + 1;
    for (let seq = Math.max(1, afterSeq + 1); seq < until && seq <= this.frames.length; seq++) conn.send(this.frames[seq - 1]);
  }
}

/** Turns that can be resumed: the running ones and those finished in the last minutes. */
export class TurnRegistry {
  private readonly channels = new Map<string, TurnChannel>();

  add(channel: TurnChannel): void {
    this.prune();
    this.channels.set(channel.ids.turn_id, channel);
  }

  get(turnId: string): TurnChannel | undefined {
    return this.channels.get(turnId);
  }

  finished(channel: TurnChannel): void {
    channel.finishedAt = Date.now();
    this.prune();
  }

  /** Drops finished turns past their time, their count or the memory budget, oldest first. */
  private prune(): void {
    const now = Date.now();
    let finished = 0;
    let bytes = 0;
    for (const [id, c] of [...this.channels.entries()].reverse()) {
      if (c.finishedAt === null) continue;
      finished += 1;
      bytes += c.bytes;
      if (now - c.finishedAt > KEEP_FINISHED_MS || finished > MAX_FINISHED || bytes > MAX_FINISHED_BYTES) this.channels.delete(id);
    }
  }

  /** `{"type":"resume","turn_id","after_seq"}` from a client. */
  attach(ws: FrameHub): void {
    ws.onMessageType('resume', (conn, msg) => {
      const turnId = msg.turn_id;
      const afterSeq = msg.after_seq;
      const channel = this.channels.get(turnId);
      if (!channel) {
        conn.send(JSON.stringify({ type: 'error', message: `no turn ${turnId.slice(0, 80)} to resume; reload the session` }));
        return;
      }
      channel.replay(conn, afterSeq);
    });
  }
}
