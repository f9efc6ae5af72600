import { useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from '../api/client';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner, Field, useFormErrors } from '../ui/controls';
import { focusFirstInvalid, isHttpUrl, linesWithout, normalizeBaseUrl, useDiscardGuard } from '../ui/form-kit';
import { ApprovalFields } from './approval-fields';
import type { ServerDraft, ServerKind } from './server-draft';

/** Add or edit one server; `save` PUTs the whole file and throws the server's validation error. */
export function ServerEditor(props: { initial: ServerDraft; editing: boolean; onClose(): void; save(draft: ServerDraft): Promise<void> }) {
  const t = useT();
  const [d, setDraft] = useState(props.initial);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const formRef = useRef<HTMLFormElement>(null);
  const guard = useDiscardGuard(JSON.stringify(d) !== JSON.stringify(props.initial), props.onClose);
  const setD = (next: ServerDraft) => {
    for (const key of Object.keys(next) as (keyof ServerDraft)[]) if (next[key] !== d[key]) errors.clearField(key);
    setDraft(next);
  };

  /** Every problem at once, each at its field, in the UI language. */
  const check = (x: ServerDraft): Record<string, string> => {
    const bad: Record<string, string> = {};
    if (!x.name.trim()) bad.name = t('tools.nameRequired');
    if (x.kind === 'stdio') {
      if (!x.command.trim()) bad.command = t('mgmt.required', { field: t('tools.command') });
      const envBad = linesWithout(x.env, '=');
      if (envBad.length) bad.env = envBad.map((line) => t('mgmt.envLine', { line })).join(' ');
    } else {
      if (!isHttpUrl(x.url)) bad.url = x.url.trim() ? t('tools.urlHint') : t('mgmt.required', { field: t('tools.url') });
      const headerBad = linesWithout(x.headers, ':');
      if (headerBad.length) bad.headers = headerBad.map((line) => t('mgmt.headerLine', { line })).join(' ');
    }
    return bad;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    const ready = { ...d, name: d.name.trim(), url: d.kind === 'stdio' ? d.url : normalizeBaseUrl(d.url) };
    setDraft(ready);
    const bad = check(ready);
    if (Object.keys(bad).length) {
      errors.setMany(bad);
      focusFirstInvalid(formRef.current);
      return;
    }
    setBusy(true);
    try {
      await props.save(ready);
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'already_exists') {
        errors.setLocal('name', t('mgmt.toolExists', { name: d.name.trim() }));
        return;
      }
      // Server fields look like mcpServers.<name>.url: show them at the form's own field.
      if (err instanceof ApiFailure && err.field?.startsWith('mcpServers')) {
        const leaf = err.field.split('.').pop() ?? '';
        const known = ['command', 'args', 'env', 'url', 'headers', 'type'];
        errors.setLocal(known.includes(leaf) ? (leaf === 'type' ? 'kind' : leaf) : 'name', err.message);
        focusFirstInvalid(formRef.current);
      } else errors.report(err, []);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={props.editing ? t('tools.editTitle', { name: props.initial.name }) : t('tools.addTitle')}
      open
      onClose={guard.requestClose}
    >
      <form onSubmit={(e) => void submit(e)} noValidate ref={formRef}>
        <div className="dialog-body">
          <div className="grid-2">
            <Field label={t('tools.name')} error={errors.fieldError('name')}>
              <input
                value={d.name}
                disabled={props.editing}
                onChange={(e) => setD({ ...d, name: e.target.value })}
                autoFocus={!props.editing}
                spellCheck={false}
              />
            </Field>
            <Field label={t('tools.kind')} error={errors.fieldError('kind')}>
              <select value={d.kind} onChange={(e) => setD({ ...d, kind: e.target.value as ServerKind })}>
                <option value="stdio">{t('tools.kindStdio')}</option>
                <option value="http">{t('tools.kindHttp')}</option>
                <option value="sse">{t('tools.kindSse')}</option>
              </select>
            </Field>
          </div>
          {d.kind === 'stdio' ? (
            <>
              <Field label={t('tools.command')} error={errors.fieldError('command')} hint={t('tools.commandHint')}>
                <input value={d.command} onChange={(e) => setD({ ...d, command: e.target.value })} spellCheck={false} placeholder="npx" />
              </Field>
              <Field label={t('tools.args')} error={errors.fieldError('args')} hint={t('tools.argsHint')}>
                <textarea rows={3} value={d.args} onChange={(e) => setD({ ...d, args: e.target.value })} spellCheck={false} />
              </Field>
              <Field label={t('tools.env')} error={errors.fieldError('env')} hint={t('tools.envHint')}>
                <textarea rows={2} value={d.env} onChange={(e) => setD({ ...d, env: e.target.value })} spellCheck={false} />
              </Field>
            </>
          ) : (
            <>
              <Field label={t('tools.url')} error={errors.fieldError('url')} hint={t('tools.urlHint')}>
                <input
                  value={d.url}
                  onChange={(e) => setD({ ...d, url: e.target.value })}
                  spellCheck={false}
                  placeholder="https://example.com/mcp"
                />
              </Field>
              <Field label={t('tools.headers')} error={errors.fieldError('headers')} hint={t('tools.headersHint')}>
                <textarea rows={2} value={d.headers} onChange={(e) => setD({ ...d, headers: e.target.value })} spellCheck={false} />
              </Field>
            </>
          )}
          <ApprovalFields draft={d} onChange={setD} />
          <ErrorBanner error={errors.general} />
          {guard.bar}
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={guard.requestClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {t('common.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
