import type { WsConnection, WsHub } from '../ws/ws-hub.js';
import type { TurnFrameBody } from './chat-types.js';

const LIVE_FROM = 'chat.liveFrom';
/** Finished turns stay resumable this long (a page reload, a laptop waking up). */
const KEEP_FINISHED_MS = 10 * 60_000;
const MAX_FINISHED = 200;

/** First seq each connection received live, per turn: a resume replays only what came before it. */
function liveFrom(conn: WsConnection): Map<string, number> {
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

  constructor(
    readonly ids: { workspace_id: string; session_id: string; turn_id: string },
    private readonly ws: WsHub,
  ) {}

  get lastSeq(): number {
    return this.frames.length;
  }

  emit(body: TurnFrameBody): void {
    const seq = this.frames.length + 1;
    const data = JSON.stringify({ ...body, ...this.ids, seq });
    this.frames.push(data);
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
  replay(conn: WsConnection, afterSeq: number): void {
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
  }

  private prune(): void {
    const now = Date.now();
    let finished = 0;
    for (const [id, c] of [...this.channels.entries()].reverse()) {
      if (c.finishedAt === null) continue;
      finished += 1;
      if (now - c.finishedAt > KEEP_FINISHED_MS || finished > MAX_FINISHED) this.channels.delete(id);
    }
  }

  /** `{"type":"resume","turn_id","after_seq"}` from a client. */
  attach(ws: WsHub): void {
    ws.onMessageType('resume', (conn, msg) => {
      const turnId = typeof msg.turn_id === 'string' ? msg.turn_id : '';
      const afterSeq = typeof msg.after_seq === 'number' && Number.isFinite(msg.after_seq) ? msg.after_seq : 0;
      const channel = this.channels.get(turnId);
      if (!channel) {
        conn.send(JSON.stringify({ type: 'error', message: `no turn ${turnId.slice(0, 80)} to resume; reload the session` }));
        return;
      }
      channel.replay(conn, afterSeq);
    });
  }
}
