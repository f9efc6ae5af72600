import { useT } from '../i18n/i18n';
import { share, shortAddress, type RouteResponse } from './swap-types';

/** Fees come in hundredths of a basis point (3000 = 0.3 %). */
function feePercent(fee: number | null): string {
  return fee === null ? '—' : `${fee / 10_000}%`;
}

/** The route as a picture: input token, one lane per path with its hops as pool boxes, output token. */
export function RoutePicture({ route, symbolOf = () => null }: { route: RouteResponse; symbolOf?(address: string): string | null }) {
  const t = useT();
  const paths = route.routeInfo.paths;
  const label = (address: string) => symbolOf(address) ?? shortAddress(address);
  // A wide route scrolls sideways inside a focusable region, so keyboard users can scroll it too.
  return (
    <div className="route-scroll" tabIndex={0} role="region" aria-label={t('mswap.routeScroll')}>
      <figure className="route-picture" aria-label={t('swap.routePicture')}>
        <div className="route-token route-token-in" title={route.tokenIn}>
          <span className="token-dot" aria-hidden="true" />
          {label(route.tokenIn)}
        </div>
        <ol className="route-lanes">
          {paths.map((p, i) => (
            <li key={i} className="route-lane">
              <span className="lane-share" title={t('swap.pathShare')}>
                {share(p.amountIn, route.amountIn)}%
              </span>
              <span className="lane-line" aria-hidden="true" />
              {p.hops.map((h, j) => (
                <span key={j} className="lane-hop-group">
                  <span className="route-hop" title={`${h.pool}\n${h.amountIn} → ${h.amountOut}`}>
                    <span className="hop-dex">{h.dex}</span>
                    <span className="hop-meta">
                      {h.version.toUpperCase()} · {t('swap.fee', { fee: feePercent(h.fee) })}
                    </span>
                    <span className="hop-pair">
                      {label(h.tokenIn)} → {label(h.tokenOut)}
                    </span>
                  </span>
                  <span className="lane-line" aria-hidden="true" />
                </span>
              ))}
            </li>
          ))}
        </ol>
        <div className="route-token route-token-out" title={route.tokenOut}>
          <span className="token-dot" aria-hidden="true" />
          {label(route.tokenOut)}
        </div>
        <figcaption className="sr-only">
          {t('swap.routeCaption', { paths: paths.length, hops: paths.reduce((n, p) => n + p.hops.length, 0) })}
        </figcaption>
      </figure>
    </div>
  );
}
