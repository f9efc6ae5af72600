import { useEffect, useState } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Badge, Dialog, ErrorBanner, Notice } from '../ui/controls';
import type { MaskedProvider, TestResult } from './provider-types';

function errorText(error: TestResult['error']): string {
  if (!error) return '';
  return typeof error === 'string' ? error : (error.message ?? error.code ?? '');
}

/** The Test dialog of the providers list: the same panel as inside the edit form. */
export function ProviderTest(props: { provider: MaskedProvider; onClose(): void }) {
  const t = useT();
  return (
    <Dialog title={t('providers.testTitle', { name: props.provider.name })} open onClose={props.onClose}>
      <div className="dialog-body">
        <ProviderTestPanel provider={props.provider} />
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Runs the provider check (at once when shown, as the user opened it to see whether it works) and
 * offers to import the remote model list into the provider. Tests the saved settings.
 */
export function ProviderTestPanel(props: { provider: MaskedProvider; onImported?(): void }) {
  const t = useT();
  const api = useApi();
  const [result, setResult] = useState<TestResult | null>(null);
  const [failure, setFailure] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const [imported, setImported] = useState<number | null>(null);

  const run = async () => {
    setRunning(true);
    setFailure(undefined);
    setImported(null);
    try {
      setResult(await api.post<TestResult>(`/api/config/providers/${encodeURIComponent(props.provider.id)}/test`));
    } catch (err) {
      setFailure(err);
    } finally {
      setRunning(false);
    }
  };

  const remoteIds = (result?.models ?? []).map((m) => (typeof m === 'string' ? m : m.id));
  // The kind the backend guessed on import (embedding, rerank), shown so the user can correct it in the table.
  const kindOf = new Map(
    (result?.models ?? []).flatMap((m) => (typeof m === 'object' && m.kind && m.kind !== 'chat' ? [[m.id, m.kind]] : [])),
  );
  const newIds = remoteIds.filter((id) => !props.provider.models.some((m) => m.id === id));

  // The backend merges the remote list itself (existing models keep their settings).
  const importModels = async () => {
    try {
      const again = await api.post<TestResult>(`/api/config/providers/${encodeURIComponent(props.provider.id)}/test`, {
        import_models: true,
      });
      setResult(again);
      setImported(again.imported?.length ?? 0);
      props.onImported?.();
    } catch (err) {
      setFailure(err);
    }
  };

  useEffect(() => {
    // Deferred one tick: the check starts as the panel appears, outside the render pass.
    const timer = setTimeout(() => void run(), 0);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the check runs once when the panel opens for a provider, not on every render
  }, [props.provider.id]);

  return (
    <section className="test-panel" aria-label={t('providers.testConnection')}>
      <div className="section-head">
        <p className="muted">{t('providers.testExplain')}</p>
        <span className="button-row">
          {newIds.length > 0 && imported === null && (
            <button type="button" className="btn btn-small" onClick={() => void importModels()}>
              {t('providers.importModels', { count: newIds.length })}
            </button>
          )}
          <button type="button" className="btn btn-small" onClick={() => void run()} disabled={running}>
            {t('providers.testConnection')}
          </button>
        </span>
      </div>
      {running && <p role="status">{t('providers.testing')}</p>}
      {result && !running && (
        <div className="test-result">
          {result.ok ? (
            <Notice tone="success">{t('providers.testOk', { ms: result.latency_ms ?? '?' })}</Notice>
          ) : (
            <Notice tone="error">{t('providers.testFailed', { reason: errorText(result.error) })}</Notice>
          )}
          {remoteIds.length > 0 && (
            <>
              <p>
                {t('providers.remoteModels', { count: remoteIds.length })}{' '}
                <Badge tone="blue">{t('providers.newModels', { count: newIds.length })}</Badge>
              </p>
              <ul className="chip-list">
                {remoteIds.slice(0, 40).map((id) => (
                  <li key={id} className={newIds.includes(id) ? 'chip chip-new' : 'chip'}>
                    {id}
                    {kindOf.has(id) && (
                      <span className="muted small">
                        {' '}
                        · {t(kindOf.get(id) === 'rerank' ? 'kb.modelKind.rerank' : 'kb.modelKind.embedding')}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {imported !== null && <Notice tone="success">{t('providers.imported', { count: imported })}</Notice>}
      <ErrorBanner error={failure} />
    </section>
  );
}
