import { useState } from 'react';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { Card, ErrorBanner, Field, Notice } from '../ui/controls';
import {
  SEARCH_PROVIDER_TYPES,
  type MaskedSearchProvider,
  type SearchProviderType,
  type WebConfigResponse,
  type WebTestResponse,
} from '../../../backend/web/web-api.js';

interface Draft {
  id: string;
  type: SearchProviderType;
  base_url: string;
  /** A new key typed here; empty keeps the stored one. */
  api_key: string;
  stored?: MaskedSearchProvider;
}

const TYPE_NAMES: Record<SearchProviderType, string> = {
  tavily: 'Tavily',
  brave: 'Brave Search',
  searxng: 'SearXNG',
  exa: 'Exa',
  jina: 'Jina',
};

function envName(id: string): string {
  return `${id
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}_API_KEY`;
}

function nextId(type: SearchProviderType, taken: string[]): string {
  for (let n = 1; ; n++) if (!taken.includes(n === 1 ? type : `${type}-${n}`)) return n === 1 ? type : `${type}-${n}`;
}

/** DESIGN 14: Settings → Web search: providers in failover order, masked keys, Test, approval, allow_hosts. */
export function WebSettingsCard() {
  const t = useT();
  const config = useResource<WebConfigResponse>('/api/config/web', ['web']);
  // Kept here: the form below starts again from each new answer, these outlive it.
  const [saved, setSaved] = useState(false);
  const [tests, setTests] = useState<WebTestResponse['results'] | null>(null);
  // Nothing while loading: the page already shows one loading line (tests and screen readers find one).
  if (!config.data)
    return config.error ? (
      <Card title={t('web.title')} className="web-settings">
        <ErrorBanner error={config.error} />
      </Card>
    ) : null;
  // A new answer from the backend (a save, another client's edit) starts the form again from it.
  return (
    <WebSettingsForm
      key={JSON.stringify(config.data)}
      data={config.data}
      reload={config.reload}
      saved={saved}
      setSaved={setSaved}
      tests={tests}
      setTests={setTests}
    />
  );
}

function WebSettingsForm(props: {
  data: WebConfigResponse;
  reload(): Promise<unknown>;
  saved: boolean;
  setSaved(v: boolean): void;
  tests: WebTestResponse['results'] | null;
  setTests(v: WebTestResponse['results'] | null): void;
}) {
  const { data, saved, setSaved, tests, setTests } = props;
  const t = useT();
  const api = useApi();
  const config = { reload: props.reload, error: undefined as unknown };
  const [drafts, setDrafts] = useState<Draft[]>(() =>
    data.web_search.providers.map((p) => ({ id: p.id, type: p.type, base_url: p.base_url ?? '', api_key: '', stored: p })),
  );
  const [approval, setApproval] = useState<'auto' | 'ask'>(data.web_search.approval);
  const [hosts, setHosts] = useState(data.web_fetch.allow_hosts.join('\n'));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const update = (i: number, patch: Partial<Draft>) => {
    setSaved(false);
    setDrafts((list) => list.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  };
  const move = (i: number, by: number) => {
    setSaved(false);
    setDrafts((list) => {
      const next = [...list];
      const [item] = next.splice(i, 1);
      next.splice(i + by, 0, item!);
      return next;
    });
  };
  const body = () => ({
    web_search: {
      providers: drafts.map((d) => ({
        id: d.id.trim(),
        type: d.type,
        ...(d.base_url.trim() ? { base_url: d.base_url.trim() } : {}),
        ...(d.api_key.trim() ? { api_key: d.api_key.trim() } : {}),
      })),
      approval,
    },
    web_fetch: {
      allow_hosts: hosts
        .split('\n')
        .map((h) => h.trim())
        .filter(Boolean),
    },
  });
  const save = async (): Promise<boolean> => {
    setSaved(false);
    setBusy(true);
    setError(undefined);
    try {
      await api.put('/api/config/web', body());
      setSaved(true);
      await config.reload();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const test = async () => {
    setTests(null);
    if (!(await save())) return;
    setBusy(true);
    try {
      setTests((await api.post<WebTestResponse>('/api/config/web/test', {})).results);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const keyHint = (d: Draft) => {
    const s = d.stored;
    if (!s?.api_key_set) return t('web.keyNone');
    if (s.api_key_source === 'env') return t('web.keyEnv', { name: envName(s.id), hint: s.api_key_hint ?? '' });
    return t('web.keyStored', { hint: s.api_key_hint ?? '' });
  };

  return (
    <Card title={t('web.title')} className="web-settings">
      <p className="muted">{t('web.intro')}</p>
      <ErrorBanner error={config.error ?? error} />
      <h3 className="web-subtitle">{t('web.providers')}</h3>
      {drafts.length === 0 && <p className="muted">{t('web.noProviders')}</p>}
      <ol className="web-providers">
        {drafts.map((d, i) => (
          <li key={i} className="web-provider">
            <div className="web-provider-fields">
              <Field label={t('web.id')}>
                <input value={d.id} onChange={(e) => update(i, { id: e.target.value })} className="mono" />
              </Field>
              <Field label={t('web.type')}>
                <select value={d.type} onChange={(e) => update(i, { type: e.target.value as SearchProviderType })}>
                  {SEARCH_PROVIDER_TYPES.map((type) => (
                    <option key={type} value={type}>
                      {TYPE_NAMES[type]}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('web.baseUrl')} hint={t('web.baseUrlHint')}>
                <input
                  value={d.base_url}
                  onChange={(e) => update(i, { base_url: e.target.value })}
                  className="mono"
                  placeholder="https://…"
                />
              </Field>
              <Field label={t('web.apiKey')} hint={keyHint(d)}>
                <input
                  type="password"
                  autoComplete="off"
                  value={d.api_key}
                  placeholder={t('web.keyPlaceholder')}
                  onChange={(e) => update(i, { api_key: e.target.value })}
                />
              </Field>
            </div>
            <div className="button-row web-provider-actions">
              <button
                type="button"
                className="btn btn-small"
                aria-label={t('web.moveUp', { id: d.id })}
                disabled={i === 0}
                onClick={() => move(i, -1)}
              >
                ↑
              </button>
              <button
                type="button"
                className="btn btn-small"
                aria-label={t('web.moveDown', { id: d.id })}
                disabled={i === drafts.length - 1}
                onClick={() => move(i, 1)}
              >
                ↓
              </button>
              <button
                type="button"
                className="btn btn-small btn-danger"
                aria-label={t('web.remove', { id: d.id })}
                onClick={() => {
                  setSaved(false);
                  setDrafts((list) => list.filter((_, j) => j !== i));
                }}
              >
                ✕
              </button>
            </div>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="btn"
        onClick={() => {
          setSaved(false);
          setDrafts((list) => [
            ...list,
            {
              id: nextId(
                'tavily',
                list.map((d) => d.id),
              ),
              type: 'tavily',
              base_url: '',
              api_key: '',
            },
          ]);
        }}
      >
        {t('web.add')}
      </button>
      <Field label={t('web.approval')}>
        <select
          value={approval}
          onChange={(e) => {
            setSaved(false);
            setApproval(e.target.value as 'auto' | 'ask');
          }}
        >
          <option value="auto">{t('web.approvalAuto')}</option>
          <option value="ask">{t('web.approvalAsk')}</option>
        </select>
      </Field>
      <Field label={t('web.allowHosts')} hint={t('web.allowHostsHint')}>
        <textarea
          rows={3}
          className="mono"
          value={hosts}
          onChange={(e) => {
            setSaved(false);
            setHosts(e.target.value);
          }}
          placeholder="wiki.lan:443"
        />
      </Field>
      <div className="button-row">
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void save()}>
          {t('web.save')}
        </button>
        <button type="button" className="btn" disabled={busy || drafts.length === 0} onClick={() => void test()}>
          {busy && tests === null ? t('web.testing') : t('web.test')}
        </button>
      </div>
      {saved && !error && <Notice tone="success">{t('web.saved')}</Notice>}
      {tests && (
        <ul className="web-tests" aria-live="polite">
          {tests.map((r) => (
            <li key={r.id}>
              <Notice tone={r.ok ? 'success' : 'error'}>
                {r.ok ? t('web.testOk', { id: r.id, message: r.message }) : t('web.testFail', { id: r.id, message: r.message })}
              </Notice>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
