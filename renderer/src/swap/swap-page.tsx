import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiFailure, joinUrl, requestJson } from '../api/client';
import { normalizeBackendUrl } from '../api/connection-store';
import { useT } from '../i18n/i18n';
import { Badge, Card, CopyButton, ErrorBanner, Field, Notice, PageHeader, useFormErrors } from '../ui/controls';
import { RoutePicture } from './route-picture';
import { CHAINS, DEFAULT_SWAP_URL, requestBody, SOURCES, usd, type RouteResponse, type SwapForm } from './swap-types';
import { focusFirstInvalid } from '../ui/form-kit';
import { formatUnits, parseUnits } from './token-units';
import { useSwapInfo, type Resolved } from './use-swap-info';

/** Above 1 % the page warns: the trade moves the price noticeably against the trader. */
const HIGH_IMPACT_BPS = 100;

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
  const info = useSwapInfo(form.chain, [form.tokenIn, form.tokenOut]);
  const formRef = useRef<HTMLFormElement>(null);
  // The backend says where its swap listener is (any port); the user may still point elsewhere.
  const urlEdited = useRef(false);
  useEffect(() => {
    if (info.swapUrl && !urlEdited.current) set({ swapUrl: info.swapUrl });
  }, [info.swapUrl]);
  const tokenIn = info.resolve(form.tokenIn);
  const tokenOut = info.resolve(form.tokenOut);
  const inDecimals = tokenIn.kind === 'token' ? tokenIn.token.decimals : null;
  const inSymbol = tokenIn.kind === 'token' ? (tokenIn.token.symbol ?? '') : '';

  /** Every invalid field at once (symbol, address, amount in token units); null when the form can be sent. */
  const localCheck = (): Record<string, string> => {
    const bad: Record<string, string> = {};
    for (const [name, r] of [
      ['tokenIn', tokenIn],
      ['tokenOut', tokenOut],
    ] as const) {
      if (r.kind === 'unknown' && !/^0x/i.test(r.text)) bad[name] = t('mswap.symbolUnknown', { text: r.text });
    }
    if (form.amountIn.trim()) {
      if (inDecimals !== null && !parseUnits(form.amountIn, inDecimals))
        bad.amountIn = t('mswap.amountInvalid', { symbol: inSymbol, decimals: inDecimals });
      if (inDecimals === null && !/^\d+$/.test(form.amountIn.trim())) bad.amountIn = t('mswap.amountRawInvalid');
    }
    return bad;
  };
  const addressOf = (r: Resolved, text: string) => (r.kind === 'token' ? r.token.address : text);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    errors.clear();
    setUnreachable(null);
    const base = normalizeBackendUrl(form.swapUrl);
    const bad = localCheck();
    if (!base) bad.swapUrl = t('connect.badUrl');
    if (Object.keys(bad).length) {
      for (const [name, message] of Object.entries(bad)) errors.setLocal(name, message);
      focusFirstInvalid(formRef.current);
      return;
    }
    if (urlEdited.current) localStorage.setItem(URL_KEY, base!);
    const amount = inDecimals !== null ? (parseUnits(form.amountIn, inDecimals) ?? form.amountIn) : form.amountIn;
    const body = requestBody({
      ...form,
      tokenIn: addressOf(tokenIn, form.tokenIn),
      tokenOut: addressOf(tokenOut, form.tokenOut),
      amountIn: amount,
    });
    setBusy(true);
    try {
      setRoute(await requestJson<RouteResponse>(joinUrl(base!, '/api/v1/route/build'), 'POST', body));
    } catch (err) {
      setRoute(null);
      if (err instanceof ApiFailure && err.kind === 'network') setUnreachable(t('swap.unreachable', { url: base! }));
      else if (err instanceof ApiFailure && err.field) {
        // includedSources[2] → the sources group; anything else the builder names goes to its input.
        const field = err.field.replace(/\[\d+\]$/, '');
        if (FIELDS.includes(field)) {
          errors.setLocal(field, err.message);
          focusFirstInvalid(formRef.current);
        } else errors.report(err, []);
      } else errors.report(err, []);
    } finally {
      setBusy(false);
    }
  };

  const text = (
    name: keyof SwapForm,
    label: string,
    opts: { hint?: string; placeholder?: string; mono?: boolean; list?: string; inputMode?: 'decimal' } = {},
  ) => (
    <Field label={label} error={errors.fieldError(name)} hint={opts.hint}>
      <input
        className={opts.mono ? 'mono' : undefined}
        value={form[name] as string}
        placeholder={opts.placeholder}
        spellCheck={false}
        list={opts.list}
        inputMode={opts.inputMode}
        autoComplete="off"
        onChange={(e) => {
          if (name === 'swapUrl') urlEdited.current = true;
          set({ [name]: e.target.value });
        }}
      />
    </Field>
  );
  const tokenHint = (r: Resolved) =>
    r.kind === 'token'
      ? t('mswap.tokenResolved', { symbol: r.token.symbol ?? '?', address: r.token.address, decimals: r.token.decimals ?? '?' })
      : r.kind === 'unknown' && /^0x/i.test(r.text)
        ? t('mswap.tokenUnknown')
        : t('mswap.tokenHint');

  return (
    <>
      <PageHeader title={t('nav.swap')} subtitle={t('swap.subtitle')} />
      <div className="swap-grid">
        <Card title={t('swap.request')}>
          <form onSubmit={(e) => void submit(e)} noValidate className="swap-form" ref={formRef}>
            {text('swapUrl', t('swap.url'), { hint: t('mswap.urlHint') })}
            <Field label={t('swap.chain')} error={errors.fieldError('chain')}>
              <select value={form.chain} onChange={(e) => set({ chain: e.target.value as SwapForm['chain'] })}>
                {CHAINS.map((c) => (
                  <option key={c} value={c}>
                    {c === 'bsc' ? 'BNB Smart Chain (bsc)' : 'Ethereum (ethereum)'}
                  </option>
                ))}
              </select>
            </Field>
            <datalist id="swap-tokens">
              {info.tokens.map((k) => (
                <option key={k.address} value={k.symbol ?? k.address}>
                  {k.address}
                </option>
              ))}
            </datalist>
            {info.listError && <Notice tone="warning">{t('mswap.tokensError', { message: info.listError })}</Notice>}
            {text('tokenIn', t('swap.tokenIn'), { placeholder: 'USDT / 0x…', mono: true, list: 'swap-tokens', hint: tokenHint(tokenIn) })}
            {text('tokenOut', t('swap.tokenOut'), {
              placeholder: 'WBNB / 0x…',
              mono: true,
              list: 'swap-tokens',
              hint: tokenHint(tokenOut),
            })}
            {text('amountIn', t('swap.amountIn'), {
              placeholder: inDecimals !== null ? '1.5' : '1000000000000000000',
              mono: true,
              inputMode: 'decimal',
              hint: inDecimals !== null ? t('mswap.amountUnits', { symbol: inSymbol }) : t('mswap.amountRaw'),
            })}
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
            <RouteResult route={route} symbolOf={info.symbolOf} decimalsOf={info.decimalsOf} />
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

function RouteResult({
  route,
  symbolOf,
  decimalsOf,
}: {
  route: RouteResponse;
  symbolOf(address: string): string | null;
  decimalsOf(address: string): number | null;
}) {
  const t = useT();
  /** Token units with the symbol where the decimals are known; the raw integer below. */
  const amount = (raw: string, token: string) => {
    const decimals = decimalsOf(token);
    return decimals === null ? raw : `${formatUnits(raw, decimals)} ${symbolOf(token) ?? ''}`.trim();
  };
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
          {stat(t('swap.amountIn'), amount(route.amountIn, route.tokenIn), `${usd(route.amountInUsd)} · ${route.amountIn}`)}
          {stat(t('swap.amountOut'), amount(route.amountOut, route.tokenOut), `${usd(route.amountOutUsd)} · ${route.amountOut}`)}
          {stat(t('swap.minOut'), amount(route.minAmountOut, route.tokenOut), route.minAmountOut)}
          {stat(t('swap.gas'), route.gas, `${route.gasPrice} wei · ${usd(route.gasUsd)}`)}
          {stat(
            t('swap.priceImpact'),
            route.priceImpactBps === null || route.priceImpactBps === undefined ? '–' : `${(route.priceImpactBps / 100).toFixed(2)} %`,
            route.priceImpactBps === null || route.priceImpactBps === undefined
              ? t('swap.priceImpactUnknown')
              : `${route.priceImpactBps} bps`,
          )}
        </div>
        {(route.priceImpactBps ?? 0) > HIGH_IMPACT_BPS && (
          <Notice tone="warning">{t('swap.priceImpactHigh', { percent: ((route.priceImpactBps ?? 0) / 100).toFixed(2) })}</Notice>
        )}
        <RoutePicture route={route} symbolOf={symbolOf} />
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
