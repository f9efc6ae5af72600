import { useId, useState } from 'react';
import { ApiFailure, joinUrl, type ApiClient } from '../api/client';
import { useApi } from '../api/session';
import { useI18n } from '../i18n/i18n';
import { Dialog, ErrorBanner } from '../ui/controls';
import type { ImportResponse } from '../../../backend/chat/branch-api.js';
import { chatPath } from './chat-types';

const SHOWN_ROWS = 50;

/** Uploads the file with progress (fetch reports none for uploads); resolves with the backend's answer. */
function upload(api: ApiClient, path: string, file: File, onProgress: (fraction: number) => void): Promise<ImportResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', joinUrl(api.baseUrl, path));
    xhr.setRequestHeader('Content-Type', 'application/json');
    if (api.credential) xhr.setRequestHeader('Authorization', `Bearer ${api.credential}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.upload.onload = () => onProgress(1);
    xhr.onerror = () => reject(new ApiFailure('network', 0, 'unreachable', 'network error'));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as ImportResponse);
      const err = (body as { error?: { code: string; message: string; field?: string } } | undefined)?.error;
      reject(new ApiFailure('http', xhr.status, err?.code ?? `http_${xhr.status}`, err?.message ?? xhr.statusText, err?.field));
    };
    xhr.send(file);
  });
}

type Stage =
  | { kind: 'pick' }
  | { kind: 'busy'; what: 'preview' | 'import'; progress: number }
  | { kind: 'preview'; result: ImportResponse }
  | { kind: 'done'; result: ImportResponse };

/** Import chats: pick a file (our JSON export or ChatGPT's conversations.json), see what it holds, then import. */
export function ImportDialog(props: { workspaceId: string; open: boolean; onClose(): void; onImported(firstId: string | null): void }) {
  const { t, locale } = useI18n();
  const api = useApi();
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [stage, setStage] = useState<Stage>({ kind: 'pick' });
  const [error, setError] = useState<unknown>();
  const n = (v: number) => v.toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US');

  const run = async (what: 'preview' | 'import', chosen: File) => {
    setError(undefined);
    setStage({ kind: 'busy', what, progress: 0 });
    try {
      const result = await upload(api, chatPath.importInto(props.workspaceId, what === 'preview'), chosen, (progress) =>
        setStage({ kind: 'busy', what, progress }),
      );
      setStage({ kind: what === 'preview' ? 'preview' : 'done', result });
      if (what === 'import') props.onImported(result.sessions[0]?.id ?? null);
    } catch (err) {
      setError(err);
      setStage({ kind: 'pick' });
    }
  };
  const close = () => {
    setFile(null);
    setStage({ kind: 'pick' });
    setError(undefined);
    props.onClose();
  };
  const result = stage.kind === 'preview' || stage.kind === 'done' ? stage.result : null;
  const totals = result && {
    conversations: result.sessions.length,
    messages: result.sessions.reduce((a, s) => a + s.message_count, 0),
    branches: result.sessions.reduce((a, s) => a + s.branches, 0),
  };

  return (
    <Dialog title={t('chat.importTitle')} open={props.open} onClose={close} wide>
      <div className="dialog-body import-preview">
        <p className="muted small">{t('chat.importHint')}</p>
        <label htmlFor={inputId}>{t('chat.importFile')}</label>
        <input
          id={inputId}
          type="file"
          accept=".json,application/json"
          disabled={stage.kind === 'busy'}
          onChange={(e) => {
            const chosen = e.target.files?.[0] ?? null;
            setFile(chosen);
            if (chosen) void run('preview', chosen);
          }}
        />
        {stage.kind === 'busy' && (
          <div role="status">
            <progress className="import-progress" max={1} value={stage.progress < 1 ? stage.progress : undefined} />
            <p className="small muted">
              {stage.progress < 1
                ? t('chat.importUploading', { percent: Math.round(stage.progress * 100) })
                : t(stage.what === 'preview' ? 'chat.importReading' : 'chat.importWriting')}
            </p>
          </div>
        )}
        <ErrorBanner error={error} />
        {result && totals && (
          <>
            <p role="status">
              {t(stage.kind === 'done' ? 'chat.importDone' : 'chat.importSummary', {
                format: result.format === 'chatgpt' ? 'ChatGPT' : t('chat.importOurs'),
                conversations: n(totals.conversations),
                messages: n(totals.messages),
                branches: n(totals.branches),
              })}
            </p>
            {result.sessions.length > 0 && (
              <table>
                <thead>
                  <tr>
                    <th>{t('chat.chatTitle')}</th>
                    <th>{t('chat.importMessages')}</th>
                    <th>{t('chat.importBranches')}</th>
                  </tr>
                </thead>
                <tbody>
                  {result.sessions.slice(0, SHOWN_ROWS).map((s, i) => (
                    <tr key={`${i}-${s.title}`}>
                      <td>{s.title}</td>
                      <td>{n(s.message_count)}</td>
                      <td>{n(s.branches)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {result.sessions.length > SHOWN_ROWS && (
              <p className="small muted">{t('chat.importMore', { count: n(result.sessions.length - SHOWN_ROWS) })}</p>
            )}
            {result.skipped.length > 0 && (
              <details open={result.skipped.length <= 5}>
                <summary>{t('chat.importSkipped', { count: n(result.skipped.length) })}</summary>
                <ul className="small">
                  {result.skipped.slice(0, SHOWN_ROWS).map((s, i) => (
                    <li key={i}>
                      <strong>{s.title}</strong>: {s.reason}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </>
        )}
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={close}>
          {stage.kind === 'done' ? t('common.close') : t('common.cancel')}
        </button>
        {stage.kind === 'preview' && file && stage.result.sessions.length > 0 && (
          <button type="button" className="btn btn-primary" onClick={() => void run('import', file)}>
            {t('chat.importRun', { count: n(stage.result.sessions.length) })}
          </button>
        )}
      </div>
    </Dialog>
  );
}
