import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useApi, useLiveMessages, useSession } from '../api/session';
import { useT } from '../i18n/i18n';
import { fromShell, shell, type ShellLogLine } from '../platform/shell-bridge';
import { Card, CopyButton, ErrorBanner, Field, PageHeader, Toggle } from '../ui/controls';

interface LogLine {
  seq: number;
  time: string;
  stream: string;
  line: string;
}

const KEEP = 2000;

function append(lines: LogLine[], more: LogLine[]): LogLine[] {
  const last = lines.length ? lines[lines.length - 1].seq : -1;
  const fresh = more.filter((l) => l.seq > last);
  if (fresh.length === 0) return lines;
  const next = lines.concat(fresh);
  return next.length > KEEP ? next.slice(next.length - KEEP) : next;
}

/** The backend's recent lines (the shell's buffer in the app), then new ones live. */
export function LogsPage() {
  const t = useT();
  const api = useApi();
  const { socket } = useSession();
  const [lines, setLines] = useState<LogLine[]>([]);
  const [error, setError] = useState<unknown>();
  const [filter, setFilter] = useState('');
  const [stream, setStream] = useState('all');
  const [follow, setFollow] = useState(true);
  const viewport = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let cancelled = false;
    const bridge = shell();
    if (bridge) {
      // The shell's buffer also holds lines from before this backend (re)started.
      const convert = (got: ShellLogLine[]) =>
        got.map((l) => ({ seq: l.seq, time: new Date(l.time).toISOString(), stream: l.stream, line: l.line }));
      fromShell(bridge.logs.getLines())
        .then((got) => !cancelled && setLines((prev) => append(convert(got), prev)))
        .catch(setError);
      const off = bridge.logs.onLines((got) => setLines((prev) => append(prev, convert(got))));
      return () => {
        cancelled = true;
        off();
      };
    }
    api
      .get<{ lines: LogLine[]; last_seq: number }>('/api/logs?since=0')
      .then((r) => !cancelled && setLines((prev) => append(r.lines, prev)))
      .catch(setError);
    socket.subscribe('log');
    return () => {
      cancelled = true;
      socket.unsubscribe('log');
    };
  }, [api, socket]);

  useLiveMessages((m) => {
    if (m.type === 'log' && !shell()) setLines((prev) => append(prev, [{ seq: m.seq, time: m.time, stream: m.stream, line: m.line }]));
  });

  const visible = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return lines.filter((l) => (stream === 'all' || l.stream === stream) && (!needle || l.line.toLowerCase().includes(needle)));
  }, [lines, filter, stream]);

  useLayoutEffect(() => {
    if (follow && viewport.current) viewport.current.scrollTop = viewport.current.scrollHeight;
  }, [visible, follow]);

  const text = visible.map((l) => `${l.time} ${l.stream === 'stderr' ? '[err] ' : ''}${l.line}`).join('\n');

  return (
    <>
      <PageHeader title={t('nav.logs')} subtitle={t('logs.subtitle')} />
      <ErrorBanner error={error} />
      <Card
        className="logs-card"
        title={t('logs.recent')}
        actions={
          <span className="muted small" role="status">
            {t('logs.count', { shown: visible.length, total: lines.length })}
          </span>
        }
      >
        <div className="toolbar">
          <Field label={t('logs.filter')} className="grow">
            <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder={t('logs.filterPlaceholder')} />
          </Field>
          <Field label={t('logs.stream')}>
            <select value={stream} onChange={(e) => setStream(e.target.value)}>
              <option value="all">{t('logs.all')}</option>
              <option value="stdout">stdout</option>
              <option value="stderr">stderr</option>
              {shell() && <option value="supervisor">supervisor</option>}
            </select>
          </Field>
          <Toggle label={t('logs.follow')} checked={follow} onChange={setFollow} />
          <CopyButton text={text} label={t('logs.copy')} />
        </div>
        <div className="log-view" ref={viewport} role="log" aria-label={t('logs.lines')} tabIndex={0}>
          {visible.length === 0 ? (
            <p className="muted">
              {!lines.length ? t('logs.empty') : filter.trim() ? t('logs.noMatch') : t('mgmt.noStreamLines', { stream })}
            </p>
          ) : (
            visible.map((l) => (
              <div key={l.seq} className={`log-line ${l.stream === 'stderr' ? 'log-err' : ''}`}>
                <span className="log-time">{l.time ? l.time.slice(11, 19) : ''}</span>
                <span className="log-text">{l.line}</span>
              </div>
            ))
          )}
        </div>
      </Card>
    </>
  );
}
