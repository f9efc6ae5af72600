import { useCallback, useState, type ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { CopyButton, Dialog } from '../ui/controls';
import { shell } from '../platform/shell-bridge';
import { drawDiagram } from './diagram-host';
import { PreviewFrame } from './preview-frame';
import { fileName, mimeType, type PreviewKind } from './protocol';
import { previewChosen, rememberPreview } from './preview-memory';
import './preview.css';

// A fenced html / svg / mermaid block (or a whole HTML reply): Code by default, Preview on a click,
// remembered so the preview comes back after a reload. The code itself is never changed, so the
// stored message and its Markdown export keep the fenced block as code.

function download(kind: PreviewKind, code: string): void {
  const url = URL.createObjectURL(new Blob([code], { type: mimeType(kind) }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName(kind);
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The desktop app opens the artifact in a sandboxed window of its own (a Mermaid diagram as the SVG
 * the diagram host drew); false in a browser, or when the app could not, so the dialog opens instead.
 */
async function openWindow(kind: PreviewKind, code: string, title: string): Promise<boolean> {
  const api = shell();
  if (!api?.preview) return false;
  const theme = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
  const input = kind === 'mermaid' ? { kind: 'diagram' as const, code: await drawDiagram(code, theme), title } : { kind, code, title };
  return (await api.preview.open(input)).ok;
}

export function CodeArtifact(props: { kind: PreviewKind; lang: string; code: string; complete: boolean; children: ReactNode }) {
  const t = useT();
  const { kind, code } = props;
  const [preview, setPreview] = useState(() => previewChosen(kind, code));
  const [full, setFull] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onError = useCallback((message: string) => setError(message), []);
  // A block still streaming shows as code: its preview starts once the fence is closed.
  const showPreview = preview && props.complete;
  const choose = (on: boolean) => {
    setPreview(on);
    setError(null);
    rememberPreview(kind, code, on);
  };
  const title = t('preview.frameTitle', { kind: props.lang || kind });
  return (
    <div className="md-code artifact" data-artifact={kind}>
      <div className="md-code-head">
        <span>{props.lang || kind}</span>
        <div className="artifact-actions">
          <div className="artifact-switch" role="group" aria-label={t('preview.view')}>
            <button
              type="button"
              className="btn btn-small"
              aria-pressed={showPreview}
              disabled={!props.complete}
              onClick={() => choose(true)}
            >
              {t('preview.preview')}
            </button>
            <button type="button" className="btn btn-small" aria-pressed={!showPreview} onClick={() => choose(false)}>
              {t('chat.code')}
            </button>
          </div>
          {showPreview && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() =>
                void openWindow(kind, code, title).then(
                  (opened) => opened || setFull(true),
                  () => setFull(true),
                )
              }
            >
              {t('preview.openFull')}
            </button>
          )}
          <button type="button" className="btn btn-small" onClick={() => download(kind, code)}>
            {t('preview.download')}
          </button>
          <CopyButton text={code} label={t('chat.copyCode')} />
        </div>
      </div>
      {showPreview && error && (
        <p className="artifact-error" role="alert">
          {kind === 'mermaid' ? t('preview.diagramError', { message: error }) : t('preview.failed', { message: error })}
        </p>
      )}
      {showPreview && !error && <PreviewFrame kind={kind} code={code} title={title} onError={onError} />}
      {(!showPreview || error) && props.children}
      {full && (
        <Dialog title={title} open={full} onClose={() => setFull(false)} wide>
          <div className="artifact-full">
            <PreviewFrame kind={kind} code={code} title={title} full />
          </div>
          <div className="dialog-foot">
            <button type="button" className="btn" onClick={() => setFull(false)}>
              {t('common.close')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
