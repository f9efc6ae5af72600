import { useState } from 'react';
import { ApiFailure } from '../api/client';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { DataTable } from '../ui/data-table';
import { Badge, Dialog, Field, Notice } from '../ui/controls';
import { useDiscardGuard } from '../ui/form-kit';
import { asImported, grantsOf, parseServersSnippet, targetOf } from './import-parse';
import { kindOf } from './server-draft';

/**
 * "Import JSON": paste an `mcpServers` snippet, see every server it holds, which names already exist
 * here (skipped, never replaced), and import the rest one by one with the create-only API.
 */
export function ImportJsonDialog(props: { filePath: string; existing: string[]; onClose(): void; onImported(): void }) {
  const t = useT();
  const api = useApi();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [failures, setFailures] = useState<Record<string, string>>({});
  const [done, setDone] = useState<number | null>(null);
  /** Names whose `approval: "auto"` / `always_allow` the user chose to keep (none by default). */
  const [kept, setKept] = useState<string[]>([]);
  const guard = useDiscardGuard(text.trim() !== '' && done === null, props.onClose);
  const parsed = parseServersSnippet(text);
  const rows = parsed.ok ? parsed.servers.map(([name, server]) => ({ name, server, exists: props.existing.includes(name) })) : [];
  const fresh = rows.filter((r) => !r.exists && !failures[r.name]);

  const run = async () => {
    setBusy(true);
    const failed: Record<string, string> = {};
    let count = 0;
    for (const r of fresh) {
      try {
        await api.post(`${props.filePath}/servers`, { name: r.name, server: asImported(r.server, kept.includes(r.name)) });
        count += 1;
      } catch (err) {
        failed[r.name] =
          err instanceof ApiFailure && err.code === 'already_exists' ? t('mgmt.importConflict') : (err as Error).message || String(err);
      }
    }
    setFailures(failed);
    setDone(count);
    setBusy(false);
    props.onImported();
  };

  return (
    <Dialog title={t('mgmt.importTitle')} open onClose={guard.requestClose} wide>
      <div className="dialog-body">
        <Field
          label={t('mgmt.importText')}
          hint={t('mgmt.importHint')}
          error={!parsed.ok && parsed.reason === 'json' && text.trim() ? t('mgmt.importBadJson', { message: parsed.message }) : undefined}
        >
          <textarea
            className="code-area"
            rows={8}
            value={text}
            autoFocus
            spellCheck={false}
            onChange={(e) => {
              setText(e.target.value);
              setDone(null);
              setFailures({});
              setKept([]);
            }}
            placeholder={
              '{\n  "mcpServers": {\n    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~"] }\n  }\n}'
            }
          />
        </Field>
        {!parsed.ok && parsed.reason === 'none' && text.trim() && <Notice tone="warning">{t('mgmt.importNone')}</Notice>}
        {rows.length > 0 && (
          <DataTable
            wrapClassName="import-preview"
            className="table-compact"
            label={t('mgmt.importPreview')}
            head={
              <tr>
                <th>{t('tools.name')}</th>
                <th>{t('tools.kind')}</th>
                <th>{t('tools.target')}</th>
                <th>{t('mcp.approvals')}</th>
                <th>{t('providers.status')}</th>
              </tr>
            }
          >
            {rows.map((r) => (
              <tr key={r.name}>
                <td className="cell-title">{r.name}</td>
                <td>{kindOf(r.server)}</td>
                <td className="mono small truncate" title={targetOf(r.server)}>
                  {targetOf(r.server)}
                </td>
                <td>
                  <ImportGrants
                    name={r.name}
                    server={r.server}
                    kept={kept.includes(r.name)}
                    onKeep={(keep) => setKept((k) => (keep ? [...k, r.name] : k.filter((n) => n !== r.name)))}
                  />
                </td>
                <td>
                  {r.exists ? (
                    <Badge tone="amber">{t('mgmt.importConflict')}</Badge>
                  ) : failures[r.name] ? (
                    <span className="field-error">{failures[r.name]}</span>
                  ) : (
                    <Badge tone="green">{t('mgmt.importNew')}</Badge>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        {done !== null && (
          <Notice tone={Object.keys(failures).length ? 'warning' : 'success'}>{t('mgmt.importDone', { count: done })}</Notice>
        )}
        {guard.bar}
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={guard.requestClose}>
          {done !== null ? t('common.close') : t('common.cancel')}
        </button>
        <button type="button" className="btn btn-primary" disabled={busy || fresh.length === 0 || done !== null} onClick={() => void run()}>
          {t('mgmt.importRun', { count: fresh.length })}
        </button>
      </div>
    </Dialog>
  );
}

/** What the snippet grants without asking, and the choice to keep it (off: the server asks for every tool). */
function ImportGrants(props: { name: string; server: Record<string, unknown>; kept: boolean; onKeep(keep: boolean): void }) {
  const t = useT();
  const { auto, tools } = grantsOf(props.server);
  if (!auto && tools.length === 0) return <span className="muted small">{t('mcp.approvalAsk')}</span>;
  return (
    <div className="import-approval">
      {auto && <Badge tone="amber">{t('mcp.importAuto')}</Badge>}
      {tools.length > 0 && <span>{t('mcp.importAlways', { tools: tools.join(', ') })}</span>}
      <label>
        <input type="checkbox" checked={props.kept} onChange={(e) => props.onKeep(e.target.checked)} />
        {t('mcp.importKeep', { name: props.name })}
      </label>
      {!props.kept && <span className="muted">{t('mcp.importWillAsk')}</span>}
    </div>
  );
}
