import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { ApiFailure } from '../api/client';
import { useResource, useSession } from '../api/session';
import { listOf } from '../api/resources';
import type { ModelInfo as CatalogModel, ModelsResponse } from '../../../backend/chat/branch-api.js';
import { BranchContext, type BranchActions } from './branch-actions';
import { chatPath } from './chat-types';
import { ModelPicker } from './model-picker';
import { SessionMenu } from './session-menu';
import { useT } from '../i18n/i18n';
import { ErrorBanner } from '../ui/controls';
import { isCompaction, type StoredMessage, type Usage } from './chat-types';
import { AttachmentCache, AttachmentContext } from './attachment-view';
import { Composer, filesOf } from './composer';
import { ContextGauge, contextUsed } from './context-gauge';
import { attachmentsOf, ConversationStore, type ConversationState } from './conversation-store';
import { MessageList } from './message-list';
import type { ModelInfo } from './model-info';
import { ReplyView } from './reply-view';
import { TurnFailure } from './turn-failure';
import { useAttachments } from './use-attachments';

/** Messages to show: while a turn runs, what was stored after its user message is the live reply's. */
function visible(state: ConversationState): StoredMessage[] {
  const cut = state.live?.userMessageId;
  if (!cut) return state.messages;
  const at = state.messages.findIndex((m) => m.id === cut);
  return at >= 0 && at < state.messages.length - 1 ? state.messages.slice(0, at + 1) : state.messages;
}

function lastUsage(messages: StoredMessage[]): Usage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isCompaction(m) && m.role !== 'user' && m.usage) return m.usage;
    if (isCompaction(m)) return undefined;
  }
  return undefined;
}

export function ConversationView(props: {
  workspaceId: string;
  sessionId: string;
  title: string;
  info: ModelInfo;
  jump: { messageId: string; nonce: number } | null;
  onTurnEnded(): void;
  /** A fork was created: open it. */
  onForked(sessionId: string): void;
}) {
  const t = useT();
  const { api, socket } = useSession();
  // One store per mounted conversation (the parent keys this view by workspace and session).
  const [store] = useState(() => new ConversationStore(api, socket, props.workspaceId, props.sessionId, props.onTurnEnded));
  useEffect(() => {
    store.start();
    return () => store.dispose();
  }, [store]);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const running = state.live?.status === 'running';
  const files = useAttachments(api, props.workspaceId, props.sessionId);
  const [cache] = useState(() => new AttachmentCache(api, props.workspaceId, props.sessionId));
  useEffect(() => () => cache.dispose(), [cache]);
  const [dropping, setDropping] = useState(false);
  // The backend's refusal of images for a model without vision, in the UI language.
  const sendError =
    state.sendError instanceof ApiFailure && state.sendError.code === 'model_lacks_vision'
      ? new Error(t('chat.attach.noVision', { model: state.overrides.model ?? props.info.model ?? '' }))
      : state.sendError;

  useEffect(() => {
    if (props.jump) void store.reveal(props.jump.messageId);
  }, [store, props.jump]);

  // Esc stops the reply from anywhere on the page (dialogs handle their own Esc).
  useEffect(() => {
    if (!running) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || (e.target as Element | null)?.closest?.('dialog')) return;
      void store.stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, store]);

  const shown = useMemo(() => visible(state), [state]);
  const usage = state.live?.usage ?? lastUsage(shown);
  const live = state.live;
  const modelData = useResource<ModelsResponse>(chatPath.models, ['providers', 'defaults']).data;
  const models = useMemo(() => listOf<CatalogModel>(modelData, 'models'), [modelData]);
  const effectiveModel = state.overrides.model ?? props.info.model;
  const contextWindow = models.find((m) => m.id === effectiveModel)?.context_window ?? props.info.contextWindow;
  const { onForked } = props;
  const actions = useMemo<BranchActions>(
    () => ({
      busy: running || state.sending !== null,
      editing: state.editing,
      models,
      edit: (id) => store.edit(id),
      // An edit keeps the files of the message it replaces.
      submitEdit: (message, text) => store.send(text, { parentId: message.parent_id ?? null, files: attachmentsOf(message.blocks) }),
      regenerate: (id, model) => void store.regenerate(id, model),
      step: (id, delta) => void store.step(id, delta),
      fork: (id) => void store.fork(id).then((sid) => sid && onForked(sid)),
    }),
    [running, state.sending, state.editing, models, store, onForked],
  );

  const carriesFiles = (e: React.DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  return (
    <AttachmentContext.Provider value={cache}>
      <div
        className={`conversation ${dropping ? 'conv-dropping' : ''}`}
        onDragOver={(e) => {
          if (!carriesFiles(e) || state.loading) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setDropping(true);
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false);
        }}
        onDrop={(e) => {
          setDropping(false);
          if (!carriesFiles(e) || state.loading) return;
          e.preventDefault();
          files.add(filesOf(e.dataTransfer.files));
        }}
      >
        {dropping && (
          <div className="conv-drop-hint" aria-hidden="true">
            {t('chat.attach.drop')}
          </div>
        )}
        <header className="conv-head">
          <h2 className="conv-title">{props.title}</h2>
          <ModelPicker
            models={models}
            profileModel={props.info.model}
            profileThinking={props.info.thinking}
            override={state.overrides.model}
            thinking={state.overrides.thinking}
            disabled={running || state.loading}
            onModel={(model) => void store.setOverrides({ model })}
            onThinking={(thinking) => void store.setOverrides({ thinking })}
          />
          <SessionMenu workspaceId={props.workspaceId} sessionId={props.sessionId} title={props.title} />
          <ContextGauge
            used={contextUsed(usage)}
            window={contextWindow}
            model={effectiveModel}
            threshold={props.info.compression.threshold_percent}
            compression={props.info.compression.enabled}
          />
        </header>
        <ErrorBanner error={state.loadError} />
        <BranchContext.Provider value={actions}>
          {state.loading ? (
            <p className="muted conv-loading">{t('common.loading')}</p>
          ) : (
            <MessageList
              messages={shown}
              hasMore={state.hasMore}
              loadingOlder={state.loadingOlder}
              onLoadOlder={() => void store.loadOlder()}
              highlight={state.highlight}
              onHighlightShown={() => store.clearHighlight()}
              liveVersion={`${live?.lastSeq ?? -1}|${state.sending ?? ''}|${state.failure ? 1 : 0}`}
              pinKey={state.sending ?? live?.turnId}
            >
              {shown.length === 0 && !live && !state.sending && <p className="muted conv-empty">{t('chat.startHint')}</p>}
              {state.sending !== null && !live?.userMessageId && (
                <article className="msg msg-user msg-sending" aria-label={t('chat.you')}>
                  <div className="bubble">{state.sending}</div>
                </article>
              )}
              {live && (
                <article className="msg msg-assistant msg-live" aria-label={t('chat.assistant')} aria-busy={live.status === 'running'}>
                  {live.compaction && (
                    <p className="turn-note">
                      {t('chat.compactedLive', { before: live.compaction.tokens_before, after: live.compaction.tokens_after })}
                    </p>
                  )}
                  <ReplyView
                    blocks={live.blocks}
                    usage={live.usage}
                    model={live.model}
                    live={live.status === 'running'}
                    waiting={live.waiting}
                    onDecide={(callId, decision, remember) => store.approve(callId, decision, remember)}
                  />
                </article>
              )}
              {state.cutShort && !live && (
                <p className="turn-note" role="status">
                  {t(state.cutShort === 'max_steps' ? 'chat.maxSteps' : 'chat.maxTokens')}
                </p>
              )}
              {state.failure && !live && <TurnFailure error={state.failure.error} onRetry={() => void store.retry()} />}
            </MessageList>
          )}
        </BranchContext.Provider>
        <ErrorBanner error={sendError} />
        <Composer
          running={running}
          busy={state.sending !== null}
          disabled={state.loading}
          attachments={files.items}
          uploading={files.uploading}
          onFiles={files.add}
          onRemoveFile={files.remove}
          autoFocus
          workspaceId={props.workspaceId}
          onSend={async (text, resources, knowledgeBases) => {
            const sent = await store.send(text, { files: files.ready, resources, knowledgeBases });
            if (sent) files.clear();
            return sent;
          }}
          onEditLast={() => store.editLast()}
          webSearch={{
            on: state.overrides.webSearch ?? props.info.webSearch,
            onToggle: () => void store.setOverrides({ web_search: !(state.overrides.webSearch ?? props.info.webSearch) }),
          }}
          onStop={() => void store.stop()}
        />
      </div>
    </AttachmentContext.Provider>
  );
}
