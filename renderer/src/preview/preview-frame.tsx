import { useEffect, useRef, useState } from 'react';
import { useT } from '../i18n/i18n';
import { DiagramStopped, drawDiagram } from './diagram-host';
import { parseFromFrame, PREVIEW_PAGE, type PreviewKind } from './protocol';

// One artifact in an opaque-origin frame: sandbox="allow-scripts" only (never allow-same-origin),
// its document from a page with its own no-network CSP, the code sent by postMessage. A frame that
// stops answering the heartbeat (an endless loop) is removed, which ends its process; Chromium runs
// such frames out of the page's process, so the chat keeps working meanwhile.

const PING_MS = 1000;
/** No answer for this long: the preview is stopped (generous: a loaded machine parses Mermaid slowly). */
export const STALL_MS = 8000;

export type FrameState = 'loading' | 'running' | 'rendered' | 'failed' | 'stopped';

export function PreviewFrame(props: { kind: PreviewKind; code: string; title: string; full?: boolean; onError?(message: string): void }) {
  const t = useT();
  const ref = useRef<HTMLIFrameElement>(null);
  const [state, setState] = useState<FrameState>('loading');
  const [height, setHeight] = useState(120);
  const [run, setRun] = useState(0);
  const { kind, code } = props;
  // Read through a ref: a new callback on each render must not restart a frame that is running.
  const onError = useRef(props.onError);
  useEffect(() => {
    onError.current = props.onError;
  });

  useEffect(() => {
    const frame = ref.current;
    if (!frame) return;
    let live = true;
    let n = 0;
    let lastAnswer = Date.now();
    const post = (msg: unknown) => frame.contentWindow?.postMessage(msg, '*');
    const onMessage = (e: MessageEvent) => {
      // The frame's origin is "null" (opaque): only its window identifies it.
      if (!live || e.source !== frame.contentWindow) return;
      const m = parseFromFrame(e.data);
      if (!m) return;
      lastAnswer = Date.now();
      if (m.type === 'ready') {
        setState('running');
        const theme = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
        if (kind !== 'mermaid') return post({ type: 'render', kind, code });
        // Drawn once in the shared diagram host; this frame only shows the SVG text.
        drawDiagram(code, theme).then(
          (svg) => live && post({ type: 'render', kind: 'diagram', code: svg }),
          (err: Error) => {
            if (!live) return;
            if (err instanceof DiagramStopped) return setState('stopped');
            setState('failed');
            onError.current?.(err.message);
          },
        );
      } else if (m.type === 'rendered') setState((s) => (s === 'failed' ? s : 'rendered'));
      else if (m.type === 'size') setHeight(m.height);
      else if (m.type === 'error') {
        setState('failed');
        onError.current?.(m.message);
      }
    };
    window.addEventListener('message', onMessage);
    const timer = setInterval(() => {
      if (Date.now() - lastAnswer > STALL_MS) {
        clearInterval(timer);
        setState('stopped');
        return;
      }
      post({ type: 'ping', n: ++n });
    }, PING_MS);
    return () => {
      live = false;
      clearInterval(timer);
      window.removeEventListener('message', onMessage);
    };
  }, [kind, code, run]);

  if (state === 'stopped') {
    return (
      <div className="preview-stopped" role="status" data-preview-state="stopped">
        <span>{t('preview.stopped')}</span>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setState('loading');
            setRun((r) => r + 1);
          }}
        >
          {t('preview.runAgain')}
        </button>
      </div>
    );
  }
  const shown = props.full ? undefined : Math.min(Math.max(height, 60), 640);
  return (
    <iframe
      key={run}
      ref={ref}
      className={props.full ? 'preview-frame preview-frame-full' : 'preview-frame'}
      title={props.title}
      src={PREVIEW_PAGE}
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      data-preview-state={state}
      style={shown ? { height: shown } : undefined}
    />
  );
}
