import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage } from './paired-page.js';

describe('swap builder page with a real route from the local chain', { timeout: 120_000 }, () => {
  let chain: Devchain;
  let proc: BackendProcess;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    const dataDir = path.join(tempDir('svc-e2e-swap-'), 'data');
    const [uiDir, started] = await Promise.all([buildRenderer(), startDevchain({ dataDir })]);
    chain = started;
    proc = await BackendProcess.start({ dataDir, env: { SERVICE_UI_DIR: uiDir } });
    await proc.waitForLine(/^pairing code: \d{6}/);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 }, locale: 'en-US' });
    errors = watchErrors(page);
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    await chain?.stop();
  });

  it('builds a split route and draws one lane per path with its hops', async () => {
    await pairInPage(page, proc);
    await page.getByRole('link', { name: 'Swap builder' }).click();
    // The listener's address comes from the backend (any port), not a hard-coded :8081.
    for (let i = 0; (await page.getByLabel('Route builder URL').inputValue()) !== proc.swapUrl; i++) {
      assert.ok(i < 100, 'the route builder URL comes from the backend');
      await page.waitForTimeout(100);
    }
    // Tokens by symbol (swap.yaml's tokens, symbol() and decimals() read on chain); the amount in WBNB, not wei.
    await page.getByLabel('Token in').fill('WBNB');
    await page.getByText(`WBNB · ${chain.token('WBNB').address} · 18 decimals`).waitFor();
    await page.getByLabel('Token out').fill('usdt');
    await page.getByText(`USDT · ${chain.token('USDT').address} · 18 decimals`).waitFor();
    await page.getByLabel('Amount in').fill('800');
    await page.getByLabel('Sender').fill(chain.user.address);
    const built = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/route/build');
    await page.getByRole('button', { name: 'Build route' }).click();
    const response = await built;
    assert.equal(response.status(), 200);
    const sent = JSON.parse(response.request().postData() ?? '{}') as { tokenIn: string; tokenOut: string; amountIn: string };
    assert.deepEqual(
      [sent.tokenIn, sent.tokenOut, sent.amountIn],
      [chain.token('WBNB').address, chain.token('USDT').address, (800n * 10n ** 18n).toString()],
    );
    const route = (await response.json()) as {
      swapType: string;
      amountOut: string;
      priceImpactBps: number;
      routeInfo: { paths: { hops: unknown[] }[] };
    };

    const picture = page.getByRole('figure', { name: 'Route diagram' });
    await picture.waitFor();
    const lanes = picture.locator('.route-lane');
    assert.equal(await lanes.count(), route.routeInfo.paths.length);
    assert.ok(route.routeInfo.paths.length > 1, 'an 800 WBNB trade is split');
    const hops = route.routeInfo.paths.reduce((n, p) => n + p.hops.length, 0);
    assert.equal(await picture.locator('.route-hop').count(), hops);
    await page.getByText(`Swap type: ${route.swapType}`).waitFor();
    await page.getByText(route.amountOut).first().waitFor();
    await page.getByText('800 WBNB', { exact: true }).waitFor();
    assert.match(await picture.innerText(), /WBNB[\s\S]*USDT/);
    // Price impact: shown as a percentage; above 1 % the page warns.
    await page.getByText(`${(route.priceImpactBps / 100).toFixed(2)} %`, { exact: true }).waitFor();
    const warning = page.getByRole('alert').filter({ hasText: 'Price impact' });
    assert.equal(await warning.count(), route.priceImpactBps > 100 ? 1 : 0, `impact ${route.priceImpactBps} bps`);
    // The picture scrolls inside a focusable region, reachable by keyboard.
    const region = page.getByRole('region', { name: 'Route diagram (scrolls sideways)' });
    assert.equal(await region.getAttribute('tabindex'), '0');
    await assertAccessible(page, 'swap page with a route');
    await screenshot(page, '12-swap-route');
    await page.setViewportSize({ width: 900, height: 700 });
    await assertAccessible(page, 'swap page with a route at 900×700');
    await region.scrollIntoViewIfNeeded();
    await screenshot(page, '12-swap-route-900x700');
    assert.deepEqual(errors, []);
  });
});
