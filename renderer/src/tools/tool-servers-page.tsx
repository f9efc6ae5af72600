import { useId, useState } from 'react';
import { fileErrors, listOf, path, type McpView, type WorkspaceEntry } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { Badge, Card, ConfirmDialog, EmptyState, ErrorBanner, Notice, PageHeader, ListTable, RowButton } from '../ui/controls';
import { draftFromServer, EMPTY_SERVER, kindOf, serverFromDraft, type ServerDraft } from './server-draft';
import { CatalogDialog } from './catalog-dialog';
import { ImportJsonDialog } from './import-json';
import './tools.css';
import { ServerEditor } from './server-editor';
import { StatusCell, useServerStatus } from './server-status';

type Raw = Record<string, unknown>;

/** Global servers and each workspace's own, in the shared `mcpServers` file shape. */
export function ToolServersPage() {
  const t = useT();
  const api = useApi();
  const scopeId = useId();
  const [scope, setScope] = useState<string>('global');
  const workspaces = useResource<unknown>(path.workspaces, ['workspaces']);
  const filePath = scope === 'global' ? path.globalMcp : path.workspaceMcp(scope);
  const file = useResource<McpView>(filePath, ['mcp']);
  const status = useServerStatus(scope === 'global' ? null : scope);
  const statusOf = (name: string) => status.data?.servers.find((s) => s.name === name);
  const [editing, setEditing] = useState<{ draft: ServerDraft; editing: boolean } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const servers = (file.data?.mcpServers ?? {}) as Record<string, Raw>;
  const readonly = (file.data?.readonly ?? {}) as Record<string, Raw>;

  // One server per call: creating never replaces (409 already_exists), replacing keeps the old entry in trash.
  const serverPath = (name: string) => `${filePath}/servers/${encodeURIComponent(name)}`;

  const rows = [
    ...Object.entries(readonly).map(([n, s]) => ({ name: n, server: s, ro: true })),
    ...Object.entries(servers).map(([n, s]) => ({ name: n, server: s, ro: false })),
  ];

  return (
    <>
      <PageHeader
        title={t('nav.tools')}
        subtitle={t('tools.subtitle')}
        actions={
          <>
            <button type="button" className="btn" onClick={() => setBrowsing(true)}>
              {t('catalog.open')}
            </button>
            <button type="button" className="btn" onClick={() => setImporting(true)}>
              {t('mgmt.importJson')}
            </button>
            <button type="button" className="btn btn-primary" onClick={() => setEditing({ draft: EMPTY_SERVER, editing: false })}>
              {t('tools.add')}
            </button>
          </>
        }
      />
      <div className="scope-bar">
        <label htmlFor={scopeId}>{t('tools.scope')}</label>
        <select id={scopeId} value={scope} onChange={(e) => setScope(e.target.value)}>
          <option value="global">{t('tools.global')}</option>
          {listOf<WorkspaceEntry>(workspaces.data, 'workspaces').map((w) => (
            <option key={w.id} value={w.id}>
              {t('tools.workspace', { name: w.name })}
            </option>
          ))}
        </select>
      </div>
      {fileErrors(file.data).map((e) => (
        <Notice key={e.file} tone="error">
          {t('providers.fileProblem', { file: e.file, line: e.line ?? '?', message: e.message })}
        </Notice>
      ))}
      <ErrorBanner error={file.error} />
      <Card title={scope === 'global' ? t('tools.global') : t('tools.workspaceServers')}>
        <ListTable
          loading={file.loading && !file.data}
          empty={
            rows.length === 0 ? (
              <EmptyState title={t('tools.empty')}>
                <p className="muted">{t('tools.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('tools.name')}</th>
              <th>{t('tools.kind')}</th>
              <th>{t('tools.target')}</th>
              <th>{t('mcp.status')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {rows.map(({ name, server, ro }) => {
            const kind = kindOf(server);
            const target =
              kind === 'stdio' ? [server.command, ...((server.args as string[] | undefined) ?? [])].join(' ') : String(server.url ?? '');
            return (
              <tr key={`${ro}:${name}`}>
                <td>
                  <div className="cell-title">{name}</div>
                  {ro && <Badge tone="gray">{t('tools.readonly')}</Badge>}
                </td>
                <td>
                  <Badge tone={kind === 'stdio' ? 'blue' : 'green'}>{kind}</Badge>
                </td>
                <td className="mono small truncate" title={target}>
                  {target}
                </td>
                <td>
                  <StatusCell
                    status={statusOf(name)}
                    workspaceId={scope === 'global' ? null : scope}
                    onChanged={() => void status.reload()}
                  />
                </td>
                <td className="row-actions">
                  {!ro && (
                    <>
                      <RowButton
                        label={t('tools.editNamed', { name })}
                        onClick={() => setEditing({ draft: draftFromServer(name, server), editing: true })}
                      >
                        {t('common.edit')}
                      </RowButton>
                      <RowButton label={t('tools.removeNamed', { name })} danger onClick={() => setRemoving(name)}>
                        {t('tools.remove')}
                      </RowButton>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </ListTable>
      </Card>
      {editing && (
        <ServerEditor
          initial={editing.draft}
          editing={editing.editing}
          onClose={() => setEditing(null)}
          save={async (draft) => {
            if (editing.editing) await api.put(serverPath(draft.name), serverFromDraft(draft, servers[draft.name]));
            else await api.post(`${filePath}/servers`, { name: draft.name, server: serverFromDraft(draft) });
            setEditing(null);
            await file.reload();
          }}
        />
      )}
      {browsing && (
        <CatalogDialog
          filePath={filePath}
          existing={[...Object.keys(servers), ...Object.keys(readonly)]}
          onClose={() => setBrowsing(false)}
          onAdded={() => void file.reload()}
        />
      )}
      {importing && (
        <ImportJsonDialog
          filePath={filePath}
          existing={[...Object.keys(servers), ...Object.keys(readonly)]}
          onClose={() => setImporting(false)}
          onImported={() => void file.reload()}
        />
      )}
      <ConfirmDialog
        open={removing !== null}
        title={t('tools.removeTitle')}
        message={t('common.confirmDelete', { name: removing ?? '' })}
        confirmLabel={t('tools.remove')}
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await api.del(serverPath(removing!));
          await file.reload();
        }}
      />
    </>
  );
}
