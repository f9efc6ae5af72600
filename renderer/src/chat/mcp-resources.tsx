import { useEffect, useState } from 'react';
import type { ResourceInfo } from '../../../backend/mcp/mcp-status-api.js';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Notice } from '../ui/controls';

export type ResourceRef = { server: string; uri: string; name: string };

type ResourceList = { resources: ResourceInfo[]; problems: { server: string; error: string }[] };

/**
 * DESIGN 9: pick resources of the workspace's tool servers to attach to the next message; the
 * backend reads them at send time and stores the snapshot with the message.
 */
export function ResourcePicker(props: { workspaceId: string; chosen: ResourceRef[]; onClose(): void; onPick(r: ResourceRef): void }) {
  const t = useT();
  const api = useApi();
  const [list, setList] = useState<ResourceList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    let live = true;
    api
      .get<ResourceList>(`/api/workspaces/${encodeURIComponent(props.workspaceId)}/mcp/resources`)
      .then((l) => live && setList(l))
      .catch((err: unknown) => live && setError(err));
    return () => {
      live = false;
    };
  }, [api, props.workspaceId]);
  const q = filter.trim().toLowerCase();
  const shown = (list?.resources ?? []).filter((r) => `${r.server} ${r.name} ${r.uri}`.toLowerCase().includes(q));
  const isChosen = (r: ResourceInfo) => props.chosen.some((c) => c.server === r.server && c.uri === r.uri);
  return (
    <Dialog title={t('mcp.resourcesTitle')} open onClose={props.onClose} wide>
      <div className="dialog-body">
        <label className="sr-only" htmlFor="resource-filter">
          {t('mcp.resourcesFilter')}
        </label>
        <input
          id="resource-filter"
          className="resource-filter"
          placeholder={t('mcp.resourcesFilter')}
          value={filter}
          autoFocus
          onChange={(e) => setFilter(e.target.value)}
        />
        <ErrorBanner error={error} />
        {list?.problems.map((p) => (
          <Notice key={p.server} tone="warning">
            {t('mcp.serverProblem', { server: p.server, error: p.error })}
          </Notice>
        ))}
        {!list && !error && <p className="muted">{t('mcp.resourcesLoading')}</p>}
        {list && shown.length === 0 && <p className="muted">{t('mcp.resourcesNone')}</p>}
        {shown.length > 0 && (
          <ul className="resource-list" aria-label={t('mcp.resources')}>
            {shown.map((r) => (
              <li key={`${r.server} ${r.uri}`}>
                <div>
                  <div className="cell-title">{r.name}</div>
                  <div className="mono small muted truncate" title={r.uri}>
                    {r.server} · {r.uri}
                    {r.mime ? ` · ${r.mime}` : ''}
                  </div>
                </div>
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={isChosen(r)}
                  aria-label={isChosen(r) ? t('mcp.attachedNamed', { name: r.name }) : t('mcp.attachNamed', { name: r.name })}
                  onClick={() => props.onPick({ server: r.server, uri: r.uri, name: r.name })}
                >
                  {isChosen(r) ? t('mcp.attached') : t('mcp.attach')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}

/** The resources attached to the message being written, each removable. */
export function AttachedResources(props: { items: ResourceRef[]; onRemove(r: ResourceRef): void }) {
  const t = useT();
  if (props.items.length === 0) return null;
  return (
    <ul className="chip-list attached-resources" aria-label={t('mcp.attachedList')}>
      {props.items.map((r) => (
        <li key={`${r.server} ${r.uri}`} className="chip" title={r.uri}>
          <span>{r.name}</span>
          <button
            type="button"
            className="btn btn-small btn-link"
            aria-label={t('mcp.detachNamed', { name: r.name })}
            onClick={() => props.onRemove(r)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

const SNAPSHOT = /^<resource server="([^"]*)" uri="([^"]*)"(?: mime="([^"]*)")?>\n([\s\S]*)\n<\/resource>$/;
const unescape = (v: string) =>
  v
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** What the user typed (the resource snapshots stored after it left out): the text an edit starts from. */
export function typedText(blocks: { type: string; text?: string }[]): string {
  return blocks
    .filter((b) => b.type === 'text' && !SNAPSHOT.test(b.text ?? ''))
    .map((b) => b.text ?? '')
    .join('');
}

/** A user message: its text, then each attached resource snapshot folded under its name. */
export function UserMessageText(props: { blocks: { type: string; text?: string }[] }) {
  const t = useT();
  const texts = props.blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  return (
    <>
      {texts.map((text, i) => {
        const m = SNAPSHOT.exec(text);
        if (!m) return <span key={i}>{i > 0 ? `\n\n${text}` : text}</span>;
        return (
          <details key={i} className="resource-snapshot">
            <summary>{t('mcp.snapshot', { uri: unescape(m[2]), server: unescape(m[1]) })}</summary>
            <pre>{m[4]}</pre>
          </details>
        );
      })}
    </>
  );
}
