import { useT } from '../i18n/i18n';
import { Field } from '../ui/controls';
import type { ServerDraft } from './server-draft';

/**
 * DESIGN 9: how calls of this server are approved, in the editor: `ask` or `auto`, and the tools
 * allowed without asking ("Always allow" in chat adds them), each revocable on its own.
 */
export function ApprovalFields(props: { draft: ServerDraft; onChange(next: ServerDraft): void }) {
  const t = useT();
  const d = props.draft;
  return (
    <fieldset className="group">
      <legend>{t('mcp.approvals')}</legend>
      <Field label={t('mcp.approvalMode')} hint={d.approval === 'auto' ? t('mcp.approvalAutoHint') : t('mcp.approvalAskHint')}>
        <select value={d.approval} onChange={(e) => props.onChange({ ...d, approval: e.target.value as ServerDraft['approval'] })}>
          <option value="ask">{t('mcp.approvalAsk')}</option>
          <option value="auto">{t('mcp.approvalAuto')}</option>
        </select>
      </Field>
      <div className="field">
        <span className="field-label" id="always-allow-label">
          {t('mcp.alwaysAllow')}
        </span>
        {d.alwaysAllow.length === 0 ? (
          <p className="field-hint">{t('mcp.alwaysAllowNone')}</p>
        ) : (
          <ul className="chip-list" aria-labelledby="always-allow-label">
            {d.alwaysAllow.map((tool) => (
              <li key={tool} className="chip">
                <span className="mono">{tool}</span>
                <button
                  type="button"
                  className="btn btn-small"
                  aria-label={t('mcp.revokeNamed', { tool })}
                  onClick={() => props.onChange({ ...d, alwaysAllow: d.alwaysAllow.filter((x) => x !== tool) })}
                >
                  {t('mcp.revoke')}
                </button>
              </li>
            ))}
          </ul>
        )}
        {d.approval === 'auto' && d.alwaysAllow.length > 0 && <p className="field-hint">{t('mcp.alwaysAllowMoot')}</p>}
      </div>
    </fieldset>
  );
}
