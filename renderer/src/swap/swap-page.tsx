import { useState, type FormEvent } from 'react';
import { ApiFailure, joinUrl, requestJson } from '../api/client';
import { normalizeBackendUrl } from '../api/connection-store';
import { useT } from '../i18n/i18n';
import { Badge, Card, CopyButton, ErrorBanner, Field, Notice, PageHeader, useFormErrors } from '../ui/controls';
import { RoutePicture } from './route-picture';
import { CHAINS, DEFAULT_SWAP_URL, requestBody, SOURCES, usd, type RouteResponse, type SwapForm } from './swap-types';

const URL_KEY = 'service.swapUrl';
const FIELDS = [
  'chain',
  'tokenIn',
  'tokenOut',
  'amountIn',
  'sender',
  'recipient',
  'slippageTolerance',
  'gasPrice',
  'includedSources',
  'deadline',
];

export function SwapPage() {
  const t = useT();
  const [form, setForm] = useState<SwapForm>(() => ({
    swapUrl: localStorage.getItem(URL_KEY) ?? DEFAULT_SWAP_URL,
    chain: 'bsc',
    tokenIn: '',
    tokenOut: '',
    amountIn: '',
    sender: '',
    recipient: '',
    slippageTolerance: '50',
    gasPrice: '',
    includedSources: [...SOURCES],
  }));
  const [route, setRoute] = useState<RouteResponse | null>(null);
  const [busy, setBusy] = useState(false);
  const [unreachable, setUnreachable] = useState<string | null>(null);
  const errors = useFormErrors();
  const set = (patch: Partial<SwapForm>) => setForm((f) => ({ ...f, ...patch }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    setUnreachable(null);
    const base = normalizeBackendUrl(form.swapUrl);
    if (!base) return errors.setLocal('swapUrl', t('connect.badUrl'));
    localStorage.setItem(URL_KEY, base);
    setBusy(true);
    try {
      setRoute(await requestJson<RouteResponse>(joinUrl(base, '/api/v1/route/build'), 'POST', requestBody(form)));
    } catch (err) {
      setRoute(null);
      if (err instanceof ApiFailure && err.kind === 'network') setUnreachable(t('swap.unreachable', { url: base }));
      else if (err instanceof ApiFailure && err.field) {
        // includedSources[2] → the sources group; anything else the builder names goes to its input.
        const field = err.field.replace(/\[\d+\]$/, '');
        if (FIELDS.includes(field)) errors.setLocal(field, err.message);
        else errors.report(err, []);
      } else errors.report(err, []);
    } finally {
      setBusy(false);
    }
  };

  const text = (name: keyof SwapForm, label: string, opts: { hint?: string; placeholder?: string; mono?: boolean } = {}) => (
    <Field label={label} error={errors.fieldError(name)} hint={opts.hint}>
      <input
        className={opts.mono ? 'mono' : undefined}
        value={form[name] as string}
        placeholder={opts.placeholder}
        spellCheck={false}
        onChange={(e) => set({ [name]: e.target.value })}
      />
    </Field>
  );

  return (
    <>
      <PageHeader title={t('nav.swap')} subtitle={t('swap.subtitle')} />
      <div className="swap-grid">
        <Card title={t('swap.request')}>
          <form onSubmit={submit} noValidate className="swap-form">
            {text('swapUrl', t('swap.url'), { hint: t('swap.urlHint') })}
            <Field label={t('swap.chain')} error={errors.fieldError('chain')}>
              <select value={form.chain} onChange={(e) => set({ chain: e.target.value as SwapForm['chain'] })}>
                {CHAINS.map((c) => (
                  <option key={c} value={c}>
                    {c === 'bsc' ? 'BNB Smart Chain (bsc)' : 'Ethereum (ethereum)'}
                  </option>
                ))}
              </select>
            </Field>
            {text('tokenIn', t('swap.tokenIn'), { placeholder: '0x…', mono: true, hint: t('swap.nativeHint') })}
            {text('tokenOut', t('swap.tokenOut'), { placeholder: '0x…', mono: true })}
            {text('amountIn', t('swap.amountIn'), { placeholder: '1000000000000000000', mono: true, hint: t('swap.amountHint') })}
            {text('sender', t('swap.sender'), { placeholder: '0x…', mono: true })}
            {text('recipient', t('swap.recipient'), { placeholder: t('swap.recipientHint'), mono: true })}
            <div className="grid-2">
              {text('slippageTolerance', t('swap.slippage'), { hint: t('swap.slippageHint') })}
              {text('gasPrice', t('swap.gasPrice'), { placeholder: t('swap.gasPriceHint') })}
            </div>
            <fieldset className="group" aria-describedby={errors.fieldError('includedSources') ? 'sources-error' : undefined}>
              <legend>{t('swap.sources')}</legend>
              <div className="checks">
                {SOURCES.map((s) => (
                  <label key={s} className="check">
                    <input
                      type="checkbox"
                      checked={form.includedSources.includes(s)}
                      onChange={(e) =>
                        set({
                          includedSources: e.target.checked ? [...form.includedSources, s] : form.includedSources.filter((x) => x !== s),
                        })
                      }
                    />
                    {s}
                  </label>
                ))}
              </div>
              {errors.fieldError('includedSources') && (
                <p id="sources-error" className="field-error" role="alert">
                  {errors.fieldError('includedSources')}
                </p>
              )}
            </fieldset>
            <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
              {busy ? t('swap.building') : t('swap.build')}
            </button>
          </form>
          {unreachable && <Notice tone="error">{unreachable}</Notice>}
          <ErrorBanner error={errors.general} />
        </Card>
        <div className="swap-result">
          {route ? (
            <RouteResult route={route} />
          ) : (
            <Card title={t('swap.result')}>
              <div className="empty">
                <p className="empty-title">{t('swap.noRouteYet')}</p>
                <p className="muted">{t('swap.noRouteHint')}</p>
              </div>
            </Card>
          )}
        </div>
      </div>
    </>
  );
}

function RouteResult({ route }: { route: RouteResponse }) {
  const t = useT();
  const stat = (label: string, value: string, sub?: string) => (
    <div className="stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value mono">{value}</span>
      {sub && <span className="stat-sub">{sub}</span>}
    </div>
  );
  return (
    <>
      <Card
        title={t('swap.result')}
        actions={
          <Badge tone="blue">
            {t('swap.type')}: {route.swapType}
          </Badge>
        }
      >
        <div className="stats">
          {stat(t('swap.amountIn'), route.amountIn, usd(route.amountInUsd))}
          {stat(t('swap.amountOut'), route.amountOut, usd(route.amountOutUsd))}
          {stat(t('swap.minOut'), route.minAmountOut)}
          {stat(t('swap.gas'), route.gas, `${route.gasPrice} wei · ${usd(route.gasUsd)}`)}
        </div>
        <RoutePicture route={route} />
        <p className="muted small">
          {t('swap.source', { source: route.routeInfo.source })}
          {route.routeInfo.blockNumber !== undefined ? ` · ${t('swap.block', { n: route.routeInfo.blockNumber })}` : ''}
        </p>
      </Card>
      <Card title={t('swap.transaction')}>
        <dl className="kv">
          <dt>{t('swap.aggregator')}</dt>
          <dd className="mono">{route.aggregatorAddress}</dd>
          <dt>{t('swap.executor')}</dt>
          <dd className="mono">{route.executorAddress}</dd>
          <dt>{t('swap.value')}</dt>
          <dd className="mono">{route.value}</dd>
        </dl>
        <div className="section-head">
          <h3>{t('swap.calldata')}</h3>
          <CopyButton text={route.executorData} label={t('swap.copyCalldata')} />
        </div>
        <pre className="calldata" tabIndex={0} aria-label={t('swap.calldata')}>
          {route.executorData}
        </pre>
      </Card>
    </>
  );
}
