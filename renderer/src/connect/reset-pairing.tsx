import { useCallback, useEffect, useRef, useState } from 'react';
import { joinUrl, requestJson } from '../api/client';
import { useI18n } from '../i18n/i18n';
import { fromShell, shell, type BackendState } from '../platform/shell-bridge';
import { Notice } from '../ui/controls';

/** Desktop-app-only strings, kept with the component (the shared dictionaries stay untouched). */
const STRINGS = {
  en: {
    external:
      'The app is using the backend that was already running for its data folder (pid {pid}, {url}) instead of starting a second one.',
    externalCodes: 'Its pairing codes appear in that backend’s own output.',
    boundHint: 'This backend is already paired (for example with a browser).',
    reset: 'Reset pairing…',
    confirm:
      'Resetting forgets every browser or app paired with this backend; they have to pair again. This app then pairs itself with the new code.',
    confirmButton: 'Reset and pair this app',
    cancel: 'Cancel',
    working: 'Resetting…',
    externalDone: 'Pairing was reset. Enter the new code from the output of the backend running outside the app.',
    failed: 'Could not reset pairing: {message}',
  },
  zh: {
    external: '应用正在使用已为其数据文件夹运行的后端(pid {pid},{url}),没有再启动第二个。',
    externalCodes: '它的配对码显示在该后端自己的输出中。',
    boundHint: '此后端已经配对(例如与某个浏览器)。',
    reset: '重置配对…',
    confirm: '重置会让所有已配对的浏览器或应用失去访问权限,需要重新配对。随后本应用会使用新的配对码自动配对。',
    confirmButton: '重置并配对本应用',
    cancel: '取消',
    working: '正在重置…',
    externalDone: '配对已重置。请输入在应用外运行的后端输出中的新配对码。',
    failed: '无法重置配对:{message}',
  },
} as const;

type Key = keyof (typeof STRINGS)['en'];

function useStrings(): (key: Key, values?: Record<string, string | number>) => string {
  const { locale } = useI18n();
  const table = locale === 'zh' ? STRINGS.zh : STRINGS.en;
  return (key, values = {}) => table[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

/** The shell's backend state (desktop app only; null in a browser). */
function useShellState(): BackendState | null {
  const [state, setState] = useState<BackendState | null>(null);
  useEffect(() => {
    const bridge = shell();
    if (!bridge) return;
    let active = true;
    fromShell(bridge.backend.getState()).then(
      (s) => active && setState(s),
      () => undefined,
    );
    const off = bridge.backend.onStateChanged(setState);
    return () => {
      active = false;
      off();
    };
  }, []);
  return state;
}

/** "Connected to a backend that was already running" (desktop app only). */
export function DesktopBackendNote() {
  const s = useStrings();
  const state = useShellState();
  if (state?.status !== 'ready' || !state.external) return null;
  return (
    <Notice tone="info">
      {s('external', { pid: state.pid, url: state.url })} {s('externalCodes')}
    </Notice>
  );
}

interface Claimed {
  credential: string;
  node_id: string;
}

/**
 * "Reset pairing…" on the pairing screen of the desktop app, for a data folder that is already
 * paired: after a confirmation the app resets the pairing and pairs itself with the new code it
 * reads from its backend's log. Also completes a reset confirmed from the File menu.
 */
export function ResetPairing(props: { baseUrl: string; bound: boolean | undefined; onPaired(result: Claimed): void }) {
  const s = useStrings();
  const bridge = shell();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'info' | 'error'; text: string } | null>(null);
  const { baseUrl, onPaired } = props;
  const onPairedRef = useRef(onPaired);
  useEffect(() => {
    onPairedRef.current = onPaired;
  }, [onPaired]);

  const pairWith = useCallback(
    async (code: string) => {
      const result = await requestJson<Claimed>(joinUrl(baseUrl, '/api/pairing/claim'), 'POST', {
        pairing_code: code,
        display_name: 'Desktop app',
      });
      onPairedRef.current(result);
    },
    [baseUrl],
  );

  // A reset confirmed from the menu: its code is waiting in the main process.
  useEffect(() => {
    if (!bridge) return;
    const take = () =>
      void fromShell(bridge.pairing.takeResetCode())
        .then((code) => (code ? pairWith(code.code) : undefined))
        .catch((err: Error) => setMessage({ tone: 'error', text: s('failed', { message: err.message }) }));
    take();
    return bridge.pairing.onResetDone(take);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a language switch must not take the waiting reset code a second time
  }, [bridge, pairWith]);

  if (!bridge) return null;

  const reset = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const result = await fromShell(bridge.pairing.reset());
      setConfirming(false);
      if (result.code) await pairWith(result.code.code);
      else if (result.external) setMessage({ tone: 'info', text: s('externalDone') });
    } catch (err) {
      setMessage({ tone: 'error', text: s('failed', { message: (err as Error).message }) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="reset-pairing">
      <DesktopBackendNote />
      {props.bound && !confirming && (
        <p className="muted">
          {s('boundHint')}{' '}
          <button type="button" className="btn btn-link" onClick={() => setConfirming(true)}>
            {s('reset')}
          </button>
        </p>
      )}
      {props.bound && confirming && (
        <Notice tone="warning">
          <p>{s('confirm')}</p>
          <div className="button-row">
            <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void reset()}>
              {busy ? s('working') : s('confirmButton')}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setConfirming(false)}>
              {s('cancel')}
            </button>
          </div>
        </Notice>
      )}
      {message && <Notice tone={message.tone}>{message.text}</Notice>}
    </div>
  );
}
