import { ATTACHMENT_LIMITS } from '../attachments/attachment-api.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { DataPaths } from '../data/data-dir.js';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import { ApprovalBox, type ApprovalAnswer } from './approvals.js';
import { newId, type AttachmentBlock, type StoredBlock, type StoredMessage } from './chat-types.js';
import { resolveModel, type ModelStores, type ResolvedModel } from './model-resolver.js';
import { LogAppender } from './session-log.js';
import { SessionSearch } from './session-search.js';
import { DEFAULT_TITLE, SessionStore } from './session-store.js';
import { noTools, type ToolSource } from '../tools/tool-source.js';
import { TurnChannel, TurnRegistry, type FrameHub } from './turn-channel.js';
import { runTurn } from './turn-runner.js';

interface ActiveTurn {
  turnId: string;
  channel: TurnChannel | null;
  appender: LogAppender | null;
  controller: AbortController;
  approvals: ApprovalBox;
  done: Promise<void>;
}

const TITLE_CHARS = 60;

/** Sessions and turns: one running turn per session, frames to every client, resumable. */
export class ChatEngine {
  readonly sessions: SessionStore;
  readonly search: SessionSearch;
  private readonly active = new Map<string, ActiveTurn>();
  private readonly registry = new TurnRegistry();
  private readonly tools: ToolSource;
  /** Set at shutdown: no new turn starts. */
  private closing = false;
  /** Workspaces being deleted: no new turn starts in them. */
  private readonly deleting = new Set<string>();

  constructor(
    private readonly deps: {
      stores: ModelStores & { paths: DataPaths };
      ws: FrameHub;
      logger: Logger;
      tools?: ToolSource;
      attachments: AttachmentStore;
    },
  ) {
    this.sessions = new SessionStore(deps.stores.paths);
    this.search = new SessionSearch(deps.stores.paths, deps.logger);
    // Sessions that appeared in a folder from outside (copied in while running) become searchable.
    this.sessions.onFolderRead = (workspaceId) => this.search.refreshWorkspace(workspaceId);
    this.tools = deps.tools ?? noTools;
    this.registry.attach(deps.ws);
  }

  private key(workspaceId: string, sessionId: string): string {
    return `${workspaceId}/${sessionId}`;
  }

  activeTurn(workspaceId: string, sessionId: string): { turn_id: string; last_seq: number; awaiting_approval: string[] } | null {
    const turn = this.active.get(this.key(workspaceId, sessionId));
    return turn?.channel ? { turn_id: turn.turnId, last_seq: turn.channel.lastSeq, awaiting_approval: turn.approvals.pending() } : null;
  }

  /**
   * A page of messages consistent with `active_turn.last_seq`: the log is read up to the records
   * of exactly the frames sent so far, so a client that resumes after last_seq misses nothing and
   * gets nothing twice.
   */
  async page(workspaceId: string, sessionId: string, before: string | undefined, limit: number) {
    const turn = this.active.get(this.key(workspaceId, sessionId));
    if (!turn?.channel || !turn.appender) {
      return { ...(await this.sessions.page(workspaceId, sessionId, before, limit)), active_turn: null };
    }
    const activeTurn = { turn_id: turn.turnId, last_seq: turn.channel.lastSeq, awaiting_approval: turn.approvals.pending() };
    const bytes = await turn.appender.checkpoint();
    const page = await this.sessions.page(workspaceId, sessionId, before, limit, bytes);
    // Still streaming, not interrupted.
    for (const m of page.messages) if ('turn_id' in m && m.turn_id === turn.turnId && 'interrupted' in m) delete m.interrupted;
    return { ...page, active_turn: activeTurn };
  }

  /**
   * The attachment blocks of a new message (DESIGN 8): every id uploaded to this session, and images
   * or PDFs only for a model with vision, refused before any turn starts.
   */
  private async attachmentBlocks(
    workspaceId: string,
    sessionId: string,
    ids: string[],
    model: ResolvedModel,
    /** `resources` for the files a message's resources became (checked the same way). */
    field: 'attachments' | 'resources' = 'attachments',
  ): Promise<AttachmentBlock[]> {
    if (field === 'attachments' && ids.length > ATTACHMENT_LIMITS.maxPerMessage) {
      throw new ApiError('validation_failed', `A message may carry at most ${ATTACHMENT_LIMITS.maxPerMessage} attachments.`, {
        field: 'attachments',
      });
    }
    const blocks: AttachmentBlock[] = [];
    for (const [i, id] of ids.entries()) {
      const at = field === 'attachments' ? `attachments[${i}]` : 'resources';
      const found = await this.deps.attachments.get(workspaceId, sessionId, id);
      if (!found) {
        throw new ApiError('validation_failed', `${at}: no attachment ${id.slice(0, 80)} in this session (upload it first).`, {
          field: at,
        });
      }
      const { meta } = found;
      if (meta.kind !== 'text' && !model.entry?.supports_vision) {
        throw new ApiError(
          'model_lacks_vision',
          `The model ${model.ref} cannot read images or PDFs (${meta.name}); choose a model with supports_vision, or attach text only.`,
          { field: at },
        );
      }
      const pages = meta.pages ?? 0;
      if (meta.kind === 'pdf' && model.protocol === 'native' && pages > ATTACHMENT_LIMITS.maxPdfPagesNative) {
        throw new ApiError(
          'validation_failed',
          `${at}: ${meta.name} has ${pages} pages; ${model.ref} (a native-protocol model) reads PDFs of at most ${ATTACHMENT_LIMITS.maxPdfPagesNative} pages. Split the PDF, or choose a compat model (it reads the PDF's text).`,
          { field: at },
        );
      }
      blocks.push({ type: meta.kind === 'image' ? 'image' : 'file', attachment_id: meta.id, mime: meta.mime, name: meta.name });
    }
    return blocks;
  }

  /** Stores the user message and starts the turn; the turn runs on whether or not anyone watches. */
  async startTurn(
    workspaceId: string,
    sessionId: string,
    content: string,
    attachmentIds: string[] = [],
    /** The attachments the message's tool-server resources were stored as (DESIGN 9). */
    resourceIds: string[] = [],
  ): Promise<{ turn_id: string; message_id: string }> {
    if (this.closing) throw new ApiError('shutting_down', 'The backend is shutting down; send the message again once it runs.');
    if (this.deleting.has(workspaceId)) throw new ApiError('not_found', `No workspace with id ${workspaceId}.`);
    await this.sessions.require(workspaceId, sessionId);
    const key = this.key(workspaceId, sessionId);
    if (this.active.has(key))
      throw new ApiError('turn_in_progress', 'A turn is already running in this session; wait for it or cancel it.');
    const turn: ActiveTurn = {
      turnId: newId('t'),
      channel: null,
      controller: new AbortController(),
      approvals: new ApprovalBox(),
      done: Promise.resolve(),
      appender: null,
    };
    // Claimed before the first await below: a second message in the same tick gets the 409.
    this.active.set(key, turn);
    let appender: LogAppender | undefined;
    try {
      const model = await resolveModel(this.deps.stores, workspaceId);
      const files = [
        ...(await this.attachmentBlocks(workspaceId, sessionId, attachmentIds, model)),
        ...(await this.attachmentBlocks(workspaceId, sessionId, resourceIds, model, 'resources')),
      ];
      appender = await LogAppender.open(this.sessions.logFile(workspaceId, sessionId));
      // A write that fails mid-turn (disk full) ends the turn at once: what is stored stays as it was.
      appender.onFailure = () => turn.controller.abort('storage');
      // Files before the question: models read them first (and Anthropic advises this order).
      const blocks: StoredBlock[] = [...files, ...(content.trim() ? [{ type: 'text' as const, text: content }] : [])];
      const message: StoredMessage = {
        id: newId('m'),
        role: 'user',
        created_at: new Date().toISOString(),
        blocks,
        turn_id: turn.turnId,
      };
      appender.append({ t: 'message', m: message });
      await appender.sync();
      void this.search.indexed(workspaceId, sessionId);
      await this.sessions.update(workspaceId, sessionId, (meta) => {
        meta.updated_at = message.created_at;
        meta.message_count += 1;
        if (meta.auto_title !== false && (meta.title === DEFAULT_TITLE || !meta.title)) {
          const line = content.trim().split('\n')[0] || files[0]?.name || '';
          meta.title = line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || DEFAULT_TITLE;
          meta.auto_title = false;
        }
      });
      const channel = new TurnChannel({ workspace_id: workspaceId, session_id: sessionId, turn_id: turn.turnId }, this.deps.ws);
      turn.channel = channel;
      turn.appender = appender;
      this.registry.add(channel);
      const timeoutMs = model.profile.timeout_seconds * 1000;
      const timer = setTimeout(() => turn.controller.abort('timeout'), timeoutMs);
      const opened = appender;
      turn.done = runTurn({
        workspaceId,
        sessionId,
        turnId: turn.turnId,
        model,
        channel,
        appender: opened,
        sessions: this.sessions,
        tools: this.tools,
        attachments: this.deps.attachments,
        approvals: turn.approvals,
        logger: this.deps.logger,
        signal: turn.controller.signal,
        deadline: Date.now() + timeoutMs,
      })
        .catch((err: Error) => this.deps.logger.error(`chat: turn ${turn.turnId} crashed: ${err.message}`))
        .finally(() => {
          clearTimeout(timer);
          void this.search.indexed(workspaceId, sessionId);
          this.registry.finished(channel);
          if (this.active.get(key) === turn) this.active.delete(key);
        });
      return { turn_id: turn.turnId, message_id: message.id };
    } catch (err) {
      this.active.delete(key);
      await appender?.close();
      throw err;
    }
  }

  private running(workspaceId: string, sessionId: string, turnId: string): ActiveTurn {
    const turn = this.active.get(this.key(workspaceId, sessionId));
    if (!turn || turn.turnId !== turnId) {
      if (this.registry.get(turnId)) throw new ApiError('conflict', `The turn ${turnId} has already ended.`);
      throw new ApiError('not_found', `No running turn ${turnId.slice(0, 80)} in this session.`);
    }
    return turn;
  }

  /** Stops the turn; resolves once what streamed so far is stored. */
  async cancel(workspaceId: string, sessionId: string, turnId: string): Promise<void> {
    const turn = this.running(workspaceId, sessionId, turnId);
    turn.controller.abort('cancelled');
    await turn.done;
  }

  approve(workspaceId: string, sessionId: string, turnId: string, callId: string, answer: ApprovalAnswer): void {
    this.running(workspaceId, sessionId, turnId).approvals.answer(callId, answer);
  }

  /** Aborts the matching turns; resolves once each has stored its end record. */
  private async end(match: (key: string) => boolean, reason: 'cancelled' | 'shutdown'): Promise<void> {
    const turns = [...this.active.entries()].filter(([key]) => match(key)).map(([, t]) => t);
    for (const t of turns) t.controller.abort(reason);
    await Promise.all(turns.map((t) => t.done));
  }

  /**
   * Before a workspace's folder goes to the trash: its turns end (cancelled) and store their
   * records first, so none is left running with nobody able to cancel or answer it, and nothing
   * is written back into the moved folder. `remove` runs while new turns there are refused.
   */
  async deleteWorkspace<T>(workspaceId: string, remove: () => Promise<T>): Promise<T> {
    this.deleting.add(workspaceId);
    try {
      await this.end((key) => key.startsWith(`${workspaceId}/`), 'cancelled');
      const removed = await remove();
      await this.search.forgetWorkspace(workspaceId);
      return removed;
    } finally {
      this.deleting.delete(workspaceId);
    }
  }

  /**
   * Shutdown: no new turns; running ones get `graceMs` to finish on their own, then are ended
   * (`cancelled`, "the backend is stopping") with their turn_end record and usage stored.
   */
  async close(graceMs = 0): Promise<void> {
    this.closing = true;
    const running = Promise.all([...this.active.values()].map((t) => t.done));
    if (graceMs > 0 && this.active.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    await this.end(() => true, 'shutdown');
    await this.search.close();
  }
}
