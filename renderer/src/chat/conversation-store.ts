import { ApiFailure, type ApiClient } from '../api/client';
import type { LiveSocket, SocketState } from '../api/live-socket';
import {
  asTurnFrame,
  chatPath,
  isCompaction,
  type ChatMessage,
  type SessionDetail,
  type SessionSummary,
  type StoredMessage,
  type TurnError,
  type TurnFrame,
} from './chat-types';
import type { AttachmentView } from './attachment-upload';

/** An attachment a message carries: an upload, or one of the edited message's own. */
export type AttachmentRef = Pick<AttachmentView, 'id' | 'name' | 'mime' | 'kind'>;

/** The attachments a stored message carries, as a new message would send them again. */
export function attachmentsOf(blocks: ChatMessage['blocks']): AttachmentRef[] {
  return blocks.flatMap((b) =>
    b.type === 'image' || b.type === 'file'
      ? [
          {
            id: b.attachment_id,
            name: b.name,
            mime: b.mime,
            kind: b.type === 'image' ? 'image' : b.mime === 'application/pdf' ? 'pdf' : 'text',
          },
        ]
      : [],
  );
}
import { drainFrames, newLiveTurn, type LiveTurn } from './live-turn';
import { idOf, lastReplyId, lastUserId, lastUserText, mergeNewest, upTo } from './session-pages';
import type {
  RegenerateResponse,
  SendMessageRequest,
  SessionPatch,
  SiblingsResponse,
  ThinkingOverride,
} from '../../../backend/chat/branch-api.js';

export const FIRST_PAGE = 50;
// The API allows pages of up to 500: older history arrives in few round trips.
export const OLDER_PAGE = 500;
/** With no frame for this long, ask the session whether the turn is still running. */
const QUIET_CHECK_MS = 4000;
/** A resume that filled no gap in this long may be asked again. */
const RESUME_RETRY_MS = 3000;

export interface Failure {
  error: TurnError;
  /** What the user sent, for Retry. */
  content: string | null;
}

export interface ConversationState {
  workspaceId: string;
  sessionId: string;
  loading: boolean;
  loadError?: unknown;
  messages: StoredMessage[];
  hasMore: boolean;
  loadingOlder: boolean;
  live: (LiveTurn & { userMessageId?: string }) | null;
  /** Text of a message whose POST has not answered yet. */
  sending: string | null;
  sendError?: unknown;
  failure: Failure | null;
  /** The last turn ended early without failing: `max_tokens` or `max_steps`. */
  cutShort: string | null;
  /** The turn this window started (Retry resends its text and attachments). */
  lastSent: string | null;
  lastFiles: AttachmentRef[];
  highlight: string | null;
  /** The user message being edited inline (a new branch once sent). */
  editing: string | null;
  /** The session's model and thinking overrides (DESIGN 7); null: the profile decides. */
  overrides: { model: string | null; thinking: ThinkingOverride | null; webSearch: boolean | null };
}

/**
 * One open conversation: its loaded pages, the live turn built from WebSocket frames (resumed after
 * a reload or a reconnect), sending, stopping and approvals. React reads it through `subscribe`.
 */
export class ConversationStore {
  private state: ConversationState;
  private readonly listeners = new Set<() => void>();
  private readonly pending = new Map<number, TurnFrame>();
  private resumeAskedAt = 0;
  private lastFrameAt = 0;
  private scheduled = false;
  private disposed = true;
  private offMessage: () => void = () => undefined;
  private offState: () => void = () => undefined;
  private checker: ReturnType<typeof setInterval> | undefined;
  private socketOpen = false;
  /** The last override change on its way to the backend: a send waits for it, so the turn runs with what the user chose. */
  private overridesSaved: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ApiClient,
    private readonly socket: LiveSocket,
    workspaceId: string,
    sessionId: string,
    private readonly onTurnEnded: () => void,
  ) {
    this.state = {
      workspaceId,
      sessionId,
      loading: true,
      messages: [],
      hasMore: false,
      loadingOlder: false,
      live: null,
      sending: null,
      failure: null,
      cutShort: null,
      lastSent: null,
      lastFiles: [],
      highlight: null,
      editing: null,
      overrides: { model: null, thinking: null, webSearch: null },
    };
  }

  /** Listens to the socket and loads the session (again after a `dispose`: React may remount). */
  start(): void {
    if (!this.disposed) return;
    this.disposed = false;
    const { workspaceId, sessionId } = this.state;
    this.socketOpen = this.socket.state.kind === 'open';
    this.offMessage = this.socket.onMessage((m) => {
      const frame = asTurnFrame(m);
      if (frame && frame.session_id === sessionId && frame.workspace_id === workspaceId) this.onFrame(frame);
    });
    this.offState = this.socket.onState((s) => this.onSocketState(s));
    this.checker = setInterval(() => void this.checkQuiet(), 1000);
    void this.open();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ConversationState => this.state;

  dispose(): void {
    this.disposed = true;
    this.offMessage();
    this.offState();
    clearInterval(this.checker);
  }

  private set(patch: Partial<ConversationState>, urgent = true): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...patch };
    if (urgent) return this.emit();
    // Frames: at most one render per animation frame (a timer covers hidden pages).
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = () => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.emit();
    };
    requestAnimationFrame(flush);
    setTimeout(flush, 50);
  }

  private emit(): void {
    this.scheduled = false;
    for (const l of this.listeners) l();
  }

  private get paths() {
    return { ws: this.state.workspaceId, sid: this.state.sessionId };
  }

  /** Loads the newest page; a running turn is resumed from its first frame. */
  async open(): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.session(ws, sid));
      const messages = detail.messages ?? [];
      const patch: Partial<ConversationState> = {
        loading: false,
        loadError: undefined,
        messages,
        hasMore: detail.has_more ?? messages.length >= FIRST_PAGE,
        overrides: {
          model: detail.model_override ?? null,
          thinking: detail.thinking_override ?? null,
          webSearch: detail.web_search_override ?? null,
        },
      };
      const active = detail.active_turn;
      if (active && this.state.live?.turnId !== active.turn_id) {
        patch.live = { ...newLiveTurn(active.turn_id), userMessageId: lastUserId(messages) };
        this.pending.clear();
        this.resumeAskedAt = 0;
      }
      this.set(patch);
      if (active) this.requestResume();
    } catch (err) {
      this.set({ loading: false, loadError: err });
    }
  }

  async loadOlder(limit = OLDER_PAGE): Promise<boolean> {
    const { ws, sid } = this.paths;
    const oldest = this.state.messages.find(idOf);
    if (!oldest?.id || this.state.loadingOlder || !this.state.hasMore) return false;
    this.set({ loadingOlder: true });
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.page(ws, sid, oldest.id, limit));
      const known = new Set(this.state.messages.map(idOf));
      const older = (detail.messages ?? []).filter((m) => !m.id || !known.has(m.id));
      this.set({
        messages: [...older, ...this.state.messages],
        hasMore: older.length > 0 && (detail.has_more ?? older.length >= limit),
        loadingOlder: false,
      });
      return older.length > 0;
    } catch (err) {
      this.set({ loadingOlder: false, loadError: err });
      return false;
    }
  }

  /** Pages back until the message is loaded (search results jump to it). */
  async reveal(messageId: string): Promise<boolean> {
    while (!this.state.messages.some((m) => m.id === messageId)) {
      if (this.state.loading) {
        await new Promise((r) => setTimeout(r, 30));
        continue;
      }
      if (!(await this.loadOlder(OLDER_PAGE))) {
        // Not on the shown branch (a search hit in another branch): show the branch that holds it.
        await this.showBranch(messageId);
        if (!this.state.messages.some((m) => m.id === messageId)) return false;
      }
    }
    this.set({ highlight: messageId });
    return true;
  }

  clearHighlight(): void {
    this.set({ highlight: null });
  }

  /**
   * Sends a message; resolves true once the backend took it (the composer then clears). With
   * `parentId` (an edit) the message starts a new branch after that message. `files` are uploaded
   * attachments (an edit passes the edited message's own); `resources` are read by the backend and
   * stored with the message as attachments.
   */
  async send(
    content: string,
    opts: {
      parentId?: string | null;
      files?: AttachmentRef[];
      resources?: { server: string; uri: string }[];
      /** Knowledge bases for this turn only (the composer's `#` picker, DESIGN 13). */
      knowledgeBases?: string[];
    } = {},
  ): Promise<boolean> {
    const { parentId, files = [], resources = [], knowledgeBases = [] } = opts;
    const { ws, sid } = this.paths;
    this.set({ sending: content, sendError: undefined, failure: null, cutShort: null });
    try {
      await this.overridesSaved;
      const body: SendMessageRequest & { knowledge_bases?: string[] } = {
        content,
        ...(parentId === undefined ? {} : { parent_id: parentId }),
        ...(files.length ? { attachments: files.map((f) => f.id) } : {}),
        ...(resources.length ? { resources } : {}),
        ...(knowledgeBases.length ? { knowledge_bases: knowledgeBases } : {}),
      };
      const res = await this.api.post<{ turn_id: string; message_id: string }>(chatPath.messages(ws, sid), body);
      const shown = parentId === undefined ? this.state.messages : upTo(this.state.messages, parentId);
      const prev = shown.length ? shown[shown.length - 1] : undefined;
      const user: ChatMessage = {
        id: res.message_id,
        role: 'user',
        created_at: new Date().toISOString(),
        parent_id: prev?.id ?? null,
        blocks: [
          ...files.map((f) => ({
            type: f.kind === 'image' ? ('image' as const) : ('file' as const),
            attachment_id: f.id,
            mime: f.mime,
            name: f.name,
          })),
          ...(content.trim() ? [{ type: 'text' as const, text: content }] : []),
        ],
      };
      const live = this.state.live?.turnId === res.turn_id ? this.state.live : { ...newLiveTurn(res.turn_id) };
      const messages = shown.some((m) => m.id === res.message_id) ? shown : [...shown, user];
      this.set({
        sending: null,
        editing: null,
        messages,
        live: { ...live, userMessageId: res.message_id },
        lastSent: content,
        lastFiles: files,
      });
      if (live.lastSeq === 0 && this.pending.size === 0) this.lastFrameAt = Date.now();
      if (resources.length) void this.storedQuestion(res.turn_id, res.message_id);
      return true;
    } catch (err) {
      this.set({ sending: null, sendError: err });
      if (err instanceof ApiFailure && err.code === 'turn_in_progress') void this.open();
      return false;
    }
  }

  /** Retry of a failed turn is a regenerate of its stored reply: the question is not sent twice. */
  async retry(): Promise<boolean> {
    const reply = lastReplyId(this.state.messages);
    if (reply) return this.regenerate(reply);
    const content = this.state.failure?.content ?? this.state.lastSent;
    if (content === null || content === undefined) return false;
    return this.send(content, { files: content === this.state.lastSent ? this.state.lastFiles : [] });
  }

  /** A new reply to the question `replyId` answers (optionally by another model); the old one stays a sibling. */
  async regenerate(replyId: string, model?: string): Promise<boolean> {
    const { ws, sid } = this.paths;
    this.set({ sendError: undefined, failure: null, cutShort: null });
    try {
      await this.overridesSaved;
      const res = await this.api.post<RegenerateResponse>(chatPath.regenerate(ws, sid, replyId), model ? { model } : {});
      const messages = upTo(this.state.messages, res.user_message_id);
      const live = this.state.live?.turnId === res.turn_id ? this.state.live : { ...newLiveTurn(res.turn_id) };
      this.set({ messages, live: { ...live, userMessageId: res.user_message_id } });
      if (live.lastSeq === 0 && this.pending.size === 0) this.lastFrameAt = Date.now();
      return true;
    } catch (err) {
      this.set({ sendError: err });
      if (err instanceof ApiFailure && err.code === 'turn_in_progress') void this.open();
      return false;
    }
  }

  /** Shows the sibling `delta` steps away from `messageId` (the ‹ › switcher), continued to its newest leaf. */
  async step(messageId: string, delta: number): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const { messages } = await this.api.get<SiblingsResponse>(chatPath.siblings(ws, sid, messageId));
      const at = messages.findIndex((m) => m.id === messageId);
      const next = messages[at + delta];
      if (at < 0 || !next?.id) return;
      await this.showBranch(next.id);
    } catch (err) {
      this.set({ sendError: err });
    }
  }

  async showBranch(messageId: string): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const detail = await this.api.put<SessionDetail>(chatPath.active(ws, sid), { message_id: messageId });
      const messages = detail.messages ?? [];
      this.set({ messages, hasMore: detail.has_more ?? false, failure: null, cutShort: null, editing: null });
    } catch (err) {
      this.set({ sendError: err });
    }
  }

  /** A new session holding the path to `messageId`; resolves with its id. */
  async fork(messageId: string): Promise<string | null> {
    const { ws, sid } = this.paths;
    try {
      const created = await this.api.post<SessionSummary>(chatPath.fork(ws, sid), { message_id: messageId });
      return created.id;
    } catch (err) {
      this.set({ sendError: err });
      return null;
    }
  }

  edit(messageId: string | null): void {
    this.set({ editing: messageId });
  }

  /** Up in an empty composer: edit the last question. */
  editLast(): boolean {
    const id = lastUserId(this.state.messages);
    if (!id || this.state.live?.status === 'running') return false;
    this.set({ editing: id });
    return true;
  }

  /**
   * Shown at once (the picker follows the click), confirmed or undone by the backend's answer. Changes
   * reach the backend one after another, and a send made meanwhile waits for them.
   */
  setOverrides(patch: SessionPatch): Promise<void> {
    const before = this.state.overrides;
    this.set({
      overrides: {
        model: patch.model !== undefined ? patch.model : before.model,
        thinking: patch.thinking !== undefined ? patch.thinking : before.thinking,
        webSearch: patch.web_search !== undefined ? patch.web_search : before.webSearch,
      },
    });
    const saved: Promise<void> = this.overridesSaved.then(() => this.saveOverrides(patch, before, saved));
    this.overridesSaved = saved;
    return saved;
  }

  private async saveOverrides(patch: SessionPatch, before: ConversationState['overrides'], self: Promise<void>): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const s = await this.api.patch<SessionSummary>(chatPath.session(ws, sid), patch);
      // A later change already shows its own choice: its answer settles the state.
      if (this.overridesSaved === self) {
        this.set({
          overrides: { model: s.model_override, thinking: s.thinking_override, webSearch: s.web_search_override ?? null },
          sendError: undefined,
        });
      }
    } catch (err) {
      this.set({ overrides: before, sendError: err });
    }
  }

  async stop(): Promise<void> {
    const live = this.state.live;
    if (!live || live.status !== 'running') return;
    const { ws, sid } = this.paths;
    try {
      await this.api.post(chatPath.cancel(ws, sid, live.turnId));
    } catch (err) {
      this.set({ sendError: err });
    }
  }

  async approve(callId: string, decision: 'allow' | 'deny', remember = false): Promise<void> {
    const live = this.state.live;
    if (!live) return;
    const { ws, sid } = this.paths;
    await this.api.post(
      chatPath.approvals(ws, sid, live.turnId),
      remember ? { call_id: callId, decision, remember } : { call_id: callId, decision },
    );
    const now = this.state.live;
    if (now?.turnId === live.turnId) this.set({ live: { ...now, waiting: now.waiting.filter((id) => id !== callId) } });
  }

  private onFrame(frame: TurnFrame): void {
    this.lastFrameAt = Date.now();
    let live = this.state.live;
    if (!live || (live.turnId !== frame.turn_id && live.status !== 'running')) {
      // A turn this window did not start (another window, or frames ahead of the POST's answer).
      live = newLiveTurn(frame.turn_id);
      this.pending.clear();
      this.resumeAskedAt = 0;
      if (this.state.sending === null) void this.adoptTurn(frame.turn_id);
    } else if (live.turnId !== frame.turn_id) {
      return;
    }
    if (frame.seq <= live.lastSeq) return;
    this.pending.set(frame.seq, frame);
    const { turn, gap } = drainFrames(live, this.pending);
    const merged = { ...turn, userMessageId: live.userMessageId };
    if (gap) this.requestResume();
    else this.resumeAskedAt = 0;
    this.set({ live: merged }, false);
    if (turn.status !== 'running' && live.status === 'running') void this.finish(merged);
  }

  /**
   * The stored form of a message just sent (its resources became files only on the backend): the
   * question in the list is replaced by it, so its file chips show while the reply streams.
   */
  private async storedQuestion(turnId: string, messageId: string): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.session(ws, sid));
      const stored = (detail.messages ?? []).find((m) => !isCompaction(m) && m.id === messageId);
      if (!stored || this.state.live?.turnId !== turnId) return;
      this.set({ messages: this.state.messages.map((m) => (m.id === messageId ? stored : m)) });
    } catch {
      // The list is read again when the turn ends.
    }
  }

  /** Someone else's turn in this session: its user message comes from the newest page. */
  private async adoptTurn(turnId: string): Promise<void> {
    const { ws, sid } = this.paths;
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.session(ws, sid));
      const { messages } = mergeNewest(this.state.messages, detail.messages ?? []);
      const live = this.state.live;
      if (live?.turnId === turnId && !live.userMessageId)
        this.set({ messages, live: { ...live, userMessageId: lastUserId(detail.messages ?? []) } });
    } catch {
      // The quiet check retries.
    }
  }

  private async finish(turn: LiveTurn): Promise<void> {
    const { ws, sid } = this.paths;
    const failure: Failure | null =
      turn.status === 'failed' && turn.error
        ? { error: turn.error, content: this.state.lastSent ?? lastUserText(this.state.messages) }
        : null;
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.session(ws, sid));
      const { messages, joined } = mergeNewest(this.state.messages, detail.messages ?? []);
      const stillLive = this.state.live?.turnId === turn.turnId;
      const nextActive = detail.active_turn && detail.active_turn.turn_id !== turn.turnId ? detail.active_turn : null;
      this.set({
        messages,
        hasMore: joined ? this.state.hasMore : true,
        live: stillLive
          ? nextActive
            ? { ...newLiveTurn(nextActive.turn_id), userMessageId: lastUserId(messages) }
            : null
          : this.state.live,
        failure,
      });
      if (nextActive) this.requestResume();
    } catch (err) {
      this.set({ live: null, failure, loadError: err });
    }
    this.onTurnEnded();
  }

  private requestResume(): void {
    const live = this.state.live;
    if (!live || !this.socketOpen) return;
    if (this.resumeAskedAt && Date.now() - this.resumeAskedAt < RESUME_RETRY_MS) return;
    this.resumeAskedAt = Date.now();
    this.lastFrameAt = Date.now();
    this.socket.send({ type: 'resume', turn_id: live.turnId, after_seq: live.lastSeq });
  }

  private onSocketState(s: SocketState): void {
    const wasOpen = this.socketOpen;
    this.socketOpen = s.kind === 'open';
    if (this.socketOpen && !wasOpen && this.state.live?.status === 'running') {
      this.resumeAskedAt = 0;
      this.requestResume();
    }
  }

  /** A turn that went quiet may have ended while frames were lost: the session says. */
  private async checkQuiet(): Promise<void> {
    const live = this.state.live;
    if (!live || live.status !== 'running' || this.state.sending !== null) return;
    if (Date.now() - this.lastFrameAt < QUIET_CHECK_MS) return;
    this.lastFrameAt = Date.now();
    if (this.pending.size > 0) this.resumeAskedAt = 0;
    const { ws, sid } = this.paths;
    try {
      const detail = await this.api.get<SessionDetail>(chatPath.session(ws, sid));
      if (this.state.live?.turnId !== live.turnId) return;
      if (detail.active_turn?.turn_id === live.turnId) {
        if (detail.active_turn.last_seq > this.state.live.lastSeq) this.requestResume();
        return;
      }
      const { messages } = mergeNewest(this.state.messages, detail.messages ?? []);
      this.set({ messages, live: null });
      this.onTurnEnded();
    } catch {
      // Try again on the next tick.
    }
  }
}
