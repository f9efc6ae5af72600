import { api, BackendProcess, startPaired, type StartOptions } from '../helpers/backend-process.js';
import { openWs, type WsOpen } from '../helpers/ws-client.js';

export interface ProviderDef {
  id: string;
  type: 'compat' | 'native' | 'responsemode';
  base_url: string;
  api_key?: string;
  models?: Record<string, unknown>[];
}

export const TEST_KEY = 'sk-test-SECRET-4f9c2a7d1e8b6035';

export const model = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  context_window: 200_000,
  supports_thinking: true,
  supports_tools: true,
  ...extra,
});

/** A paired backend with providers, a profile and a workspace bound to it, driven through the API. */
export class ChatRig {
  workspaceId = '';
  readonly profileId = 'chat-test';

  private constructor(
    public proc: BackendProcess,
    readonly credential: string,
    private readonly startOptions: StartOptions = {},
  ) {}

  /** Starts the backend again on the same data directory (after a stop or a SIGKILL). */
  async restart(): Promise<void> {
    this.proc = await BackendProcess.start({ ...this.startOptions, dataDir: this.proc.dataDir });
  }

  static async start(
    providers: ProviderDef[],
    options: { profile?: Record<string, unknown>; start?: StartOptions; defaults?: { provider: string; model: string } } = {},
  ): Promise<ChatRig> {
    const { proc, credential } = await startPaired(options.start);
    const rig = new ChatRig(proc, credential, options.start);
    for (const p of providers) {
      await rig.ok('POST', '/api/config/providers', { name: p.id, api_key: TEST_KEY, models: [model('m1')], ...p });
    }
    const first = providers[0];
    if (first)
      await rig.ok('PUT', '/api/config/defaults', options.defaults ?? { provider: first.id, model: String(first.models?.[0]?.id ?? 'm1') });
    await rig.setProfile(options.profile ?? {});
    const ws = await rig.ok('POST', '/api/workspaces', { name: 'chat', profile_id: rig.profileId });
    rig.workspaceId = ws.id as string;
    return rig;
  }

  call(method: string, path: string, body?: unknown) {
    return api(this.proc.url, method, path, { credential: this.credential, body });
  }

  /** A call that must succeed (2xx); returns the body. */
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.call(method, path, body);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  setProfile(profile: Record<string, unknown>): Promise<any> {
    return this.ok('PUT', `/api/profiles/${this.profileId}`, profile);
  }

  sessionsPath(sid = ''): string {
    return `/api/workspaces/${this.workspaceId}/sessions${sid ? `/${sid}` : ''}`;
  }

  async newSession(title?: string): Promise<string> {
    return (await this.ok('POST', this.sessionsPath(), title === undefined ? {} : { title })).id as string;
  }

  async send(sid: string, content: string): Promise<{ turn_id: string; message_id: string }> {
    return this.ok('POST', `${this.sessionsPath(sid)}/messages`, { content });
  }

  session(sid: string, query = ''): Promise<any> {
    return this.ok('GET', `${this.sessionsPath(sid)}${query}`);
  }

  async watch(): Promise<TurnWatch> {
    const conn = await openWs(`${this.proc.url.replace('http', 'ws')}/ws?service_credential=${encodeURIComponent(this.credential)}`);
    await conn.next((m) => m.type === 'hello');
    return new TurnWatch(conn);
  }

  /** Sends a message and waits for the turn's last frame; returns that turn's frames. */
  async turn(sid: string, content: string, timeoutMs = 20_000): Promise<{ turnId: string; frames: any[]; end: any }> {
    const watch = await this.watch();
    try {
      const { turn_id } = await this.send(sid, content);
      const end = await watch.end(turn_id, timeoutMs);
      return { turnId: turn_id, frames: watch.frames(turn_id), end };
    } finally {
      watch.close();
    }
  }
}

/** Frames of turns as one WebSocket client sees them. */
export class TurnWatch {
  constructor(readonly conn: WsOpen) {}

  frames(turnId: string): any[] {
    return this.conn.messages.filter((m) => m.turn_id === turnId).sort((a, b) => a.seq - b.seq);
  }

  /** Resolves with the first frame of the turn matching `pred` (seen earlier or arriving later). */
  wait(turnId: string, pred: (m: any) => boolean, timeoutMs = 20_000): Promise<any> {
    const seen = this.conn.messages.find((m) => m.turn_id === turnId && pred(m));
    if (seen) return Promise.resolve(seen);
    return this.conn.next((m) => m.turn_id === turnId && pred(m), timeoutMs);
  }

  end(turnId: string, timeoutMs = 20_000): Promise<any> {
    return this.wait(turnId, (m) => m.type === 'turn.completed' || m.type === 'turn.failed', timeoutMs);
  }

  text(turnId: string, kind: 'text' | 'thinking' = 'text'): string {
    return this.frames(turnId)
      .filter((m) => m.type === 'turn.delta' && m.kind === kind)
      .map((m) => m.text)
      .join('');
  }

  close(): void {
    this.conn.socket.close();
  }
}

/** Deltas of one kind joined. */
export function deltaText(frames: any[], kind: 'text' | 'thinking' = 'text'): string {
  return frames
    .filter((m) => m.type === 'turn.delta' && m.kind === kind)
    .map((m) => m.text)
    .join('');
}
