import { ATTACHMENT_LIMITS } from '../attachments/attachment-api.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { DataPaths } from '../data/data-dir.js';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import { ApprovalBox, type ApprovalAnswer } from './approvals.js';
import { newId, type AttachmentBlock, type SessionMeta, type StoredBlock, type StoredMessage } from './chat-types.js';
import { resolveModel, type ModelStores, type ResolvedModel } from './model-resolver.js';
import { LogAppender } from './session-log.js';
import { SessionSearch } from './session-search.js';
import { DEFAULT_TITLE, SessionStore, summary } from './session-store.js';
import { noTools, type ToolSource } from '../tools/tool-source.js';
import { TurnChannel, TurnRegistry, type FrameHub } from './turn-channel.js';
import { runTurn, type WebTurn } from './turn-runner.js';
import type { WebService } from '../web/web-tools.js';
import type { KnowledgeReader } from '../knowledge/knowledge-api.js';
import { SourceNumbers } from '../tools/source-numbers.js';
import { IndexTree } from './index-tree.js';

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
      /** The web tools (DESIGN 14); absent: web search is never offered. */
      web?: WebService;
      /** The knowledge bases (DESIGN 13); absent: none is ever in play. */
      knowledge?: KnowledgeReader;
    },
  ) {
    this.sessions = new SessionStore(deps.stores.paths);
    this.search = new SessionSearch(deps.stores.paths, deps.logger);
    // Sessions that appeared in a folder from outside (copied in while running) become searchable.
    this.sessions.onFolderRead = (workspaceId) => this.search.refreshWorkspace(workspaceId);
    this.tools = deps.tools ?? noTools;
    this.registry.attach(deps.ws);
  }

  /** The model a turn of this workspace would use with `modelRef` as the session's choice. */
  resolveModel(workspaceId: string, modelRef?: string): Promise<ResolvedModel> {
    return resolveModel(this.deps.stores, workspaceId, { model: modelRef, field: modelRef ? 'model' : undefined });
  }

  /** Files of the sessions (export and fork carry them). */
  get attachments(): AttachmentStore {
    return this.deps.attachments;
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

  /** The session object of `GET …/sessions/:sid`: the shown branch's newest page (or the one before `before`). */
  async sessionView(workspaceId: string, sessionId: string, before: string | undefined, limit = 50) {
    const meta = await this.sessions.require(workspaceId, sessionId);
    const page = await this.page(workspaceId, sessionId, before, limit);
    const count = page.message_count;
    // Records the search index has not seen (written while stopped, or by another program).
    if (page.log_grew && !page.active_turn) void this.search.indexed(workspaceId, sessionId);
    // A crash mid-turn leaves session.json behind events.jsonl: the log is the truth, and repairs it.
    if (count !== meta.message_count && !page.active_turn) {
      await this.sessions.update(workspaceId, sessionId, (m) => {
        m.message_count = count;
      });
    }
    return { ...summary(meta), message_count: count, messages: page.messages, has_more: page.has_more, active_turn: page.active_turn };
  }

  /**
   * Stores the user message under `parentId` (default: the leaf of the shown branch; an earlier
   * message starts a new branch there) and starts the turn; it runs whether or not anyone watches.
   */
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
    parentId?: string | null,
    attachmentIds: string[] = [],
    /** The attachments the message's tool-server resources were stored as (DESIGN 9). */
    resourceIds: string[] = [],
    /** DESIGN 13: knowledge bases for this message's turn (each must exist). */
    knowledgeBases: string[] = [],
  ): Promise<{ turn_id: string; message_id: string }> {
    const kbs = await this.checkKnowledgeBases(knowledgeBases, 'knowledge_bases');
    return this.launch(workspaceId, sessionId, undefined, async (meta, tree, turnId, model) => {
      const files = [
        ...(await this.attachmentBlocks(workspaceId, sessionId, attachmentIds, model)),
        ...(await this.attachmentBlocks(workspaceId, sessionId, resourceIds, model, 'resources')),
      ];
      let parent: string | null;
      if (parentId === undefined) {
        const leaf = await tree.leaf(meta.active_leaf);
        parent = leaf < 0 ? null : await tree.id(leaf);
      } else if (parentId === null || (await tree.message(parentId)) >= 0) parent = parentId;
      else
        throw new ApiError('validation_failed', `parent_id must be the id of a message in this session (no ${parentId.slice(0, 80)}).`, {
          field: 'parent_id',
        });
      const message: StoredMessage = {
        id: newId('m'),
        role: 'user',
        created_at: new Date().toISOString(),
        parent_id: parent,
        // Files before the question: models read them first (and Anthropic advises this order).
        blocks: [...files, ...(content.trim() ? [{ type: 'text' as const, text: content }] : [])] satisfies StoredBlock[],
        turn_id: turnId,
        ...(kbs.length > 0 ? { knowledge_bases: kbs } : {}),
      };
      return { message, title: content.trim() || files[0]?.name || '' };
    });
  }

  /**
   * Knowledge base ids a request names: each must exist (400 naming `field[i]`); duplicates are
   * dropped. A KB deleted later is skipped when a turn runs, not an error.
   */
  async checkKnowledgeBases(ids: string[], field: string): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    if (!this.deps.knowledge) throw new ApiError('validation_failed', `${field}: this backend has no knowledge bases.`, { field });
    const known = new Set((await this.deps.knowledge.describe(unique)).map((kb) => kb.id));
    const missing = ids.findIndex((id) => !known.has(id));
    if (missing >= 0) {
      const at = `${field}[${missing}]`;
      throw new ApiError(
        'validation_failed',
        `${at}: no knowledge base ${ids[missing]!.slice(0, 80)} (create it first, or pick an existing one).`,
        {
          field: at,
        },
      );
    }
    return unique;
  }

  /**
   * A new reply to the user message that `messageId` answers, beside the replies it already has
   * (DESIGN 7): nothing is stored twice, the older replies stay as siblings.
   */
  async regenerate(
    workspaceId: string,
    sessionId: string,
    messageId: string,
    modelRef?: string,
  ): Promise<{ turn_id: string; message_id: string }> {
    return this.launch(workspaceId, sessionId, modelRef, async (_meta, tree) => {
      const at = await tree.message(messageId);
      if (at < 0) throw new ApiError('not_found', `No message ${messageId.slice(0, 80)} in this session.`);
      const user = await tree.userOf(at);
      if (user < 0) throw new ApiError('validation_failed', `The message ${messageId} answers no user message.`, { field: 'message_id' });
      const parent = await tree.parent(user);
      return { existing: { id: await tree.id(user), parent_id: parent < 0 ? null : await tree.id(parent) } };
    });
  }

  private async launch(
    workspaceId: string,
    sessionId: string,
    modelRef: string | undefined,
    prepare: (
      meta: SessionMeta,
      tree: IndexTree,
      turnId: string,
      model: ResolvedModel,
    ) => Promise<{ message: StoredMessage; title: string } | { existing: { id: string; parent_id: string | null } }>,
  ): Promise<{ turn_id: string; message_id: string }> {
    if (this.closing) throw new ApiError('shutting_down', 'The backend is shutting down; send the message again once it runs.');
    if (this.deleting.has(workspaceId)) throw new ApiError('not_found', `No workspace with id ${workspaceId}.`);
    const meta = await this.sessions.require(workspaceId, sessionId);
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
      const model = await resolveModel(this.deps.stores, workspaceId, {
        model: modelRef ?? meta.model_override ?? undefined,
        thinking: meta.thinking_override ?? undefined,
        field: modelRef ? 'model' : undefined,
      });
      const tree = new IndexTree(await this.sessions.index(workspaceId, sessionId));
      const prepared = await prepare(meta, tree, turn.turnId, model);
      appender = await LogAppender.open(this.sessions.logFile(workspaceId, sessionId));
      // A write that fails mid-turn (disk full) ends the turn at once: what is stored stays as it was.
      appender.onFailure = () => turn.controller.abort('storage');
      const user = 'existing' in prepared ? prepared.existing : prepared.message;
      if ('message' in prepared) {
        appender.append({ t: 'message', m: prepared.message });
        await appender.sync();
        void this.search.indexed(workspaceId, sessionId);
      }
      await this.sessions.update(workspaceId, sessionId, (m) => {
        m.updated_at = new Date().toISOString();
        // The turn's replies grow from here: the shown branch follows them.
        m.active_leaf = user.id;
        if (!('message' in prepared)) return;
        m.message_count += 1;
        if (m.auto_title !== false && (m.title === DEFAULT_TITLE || !m.title)) {
          const line = prepared.title.trim().split('\n')[0] ?? '';
          m.title = line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || DEFAULT_TITLE;
          m.auto_title = false;
        }
      });
      const channel = new TurnChannel({ workspace_id: workspaceId, session_id: sessionId, turn_id: turn.turnId }, this.deps.ws);
      turn.channel = channel;
      turn.appender = appender;
      this.registry.add(channel);
      const numbers = new SourceNumbers();
      const web = await this.webTurn(meta, model, numbers);
      const knowledge = this.deps.knowledge ? { reader: this.deps.knowledge, workspaceKbs: await this.workspaceKbs(workspaceId) } : null;
      const timeoutMs = model.profile.timeout_seconds * 1000;
      const timer = setTimeout(() => turn.controller.abort('timeout'), timeoutMs);
      const opened = appender;
      turn.done = runTurn({
        workspaceId,
        sessionId,
        turnId: turn.turnId,
        userMessage: { id: user.id, parent_id: user.parent_id ?? null },
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
        web,
        knowledge,
        numbers,
      })
        .catch((err: Error) => this.deps.logger.error(`chat: turn ${turn.turnId} crashed: ${err.message}`))
        .finally(() => {
          clearTimeout(timer);
          void this.search.indexed(workspaceId, sessionId);
          this.registry.finished(channel);
          if (this.active.get(key) === turn) this.active.delete(key);
        });
      return { turn_id: turn.turnId, message_id: user.id };
    } catch (err) {
      this.active.delete(key);
      await appender?.close();
      throw err;
    }
  }

  /**
   * DESIGN 14: web search is on when the session says so (else the profile); `auto` uses the
   * protocol's own search tool where it has one (native, responsemode), else the built-in tools.
   */
  private async webTurn(meta: SessionMeta, model: ResolvedModel, numbers: SourceNumbers): Promise<WebTurn | null> {
    const settings = model.profile.web_search;
    const on = meta.web_search_override ?? settings.enabled;
    if (!on || !this.deps.web) return null;
    const hasNative = model.protocol === 'native' || model.protocol === 'responsemode';
    if (hasNative && settings.mode !== 'tools') return { native: { maxUses: settings.max_uses }, tools: null };
    // compat has no search tool of its own: `native` there falls back to the built-in tools.
    if (!model.offerTools) return null;
    return { native: null, tools: await this.deps.web.turnTools(numbers) };
  }

  /** The workspace's `knowledge_bases` (DESIGN 13), as workspace.json holds them. */
  private async workspaceKbs(workspaceId: string): Promise<string[]> {
    const workspace = await this.deps.stores.workspaces.get(workspaceId);
    const ids = workspace?.knowledge_bases;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
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
