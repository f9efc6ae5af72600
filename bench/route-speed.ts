/**
 * Route-build latency against the local chain: warm (the backend's pool cache holds the block's
 * state; measured through the real HTTP listener) and cold (a fresh on-chain source with an empty
 * cache for every build, against the same anvil node).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseUnits } from 'ethers';
import { startDevchain, type Devchain } from '../devchain/devchain.js';
import { OnchainSource } from '../backend/swap/onchain/onchain-source.js';
import { loadChainSettings, enabledSources } from '../backend/swap/swap-settings.js';
import { BackendProcess, tempDir } from '../test/helpers/backend-process.js';
import { median, percentile } from './stats.js';

const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

/** The benchmark scenarios: every swap type, small and large trades, native in and out. */
export function scenarios(chain: Devchain): { name: string; body: Record<string, unknown> }[] {
  const t = (s: string) => (s === 'BNB' ? NATIVE : chain.token(s).address);
  const u = (a: string, s: string) => parseUnits(a, s === 'BNB' ? 18 : chain.token(s).decimals).toString();
  return [
    { name: 'CAKE→USDT small', body: { tokenIn: t('CAKE'), tokenOut: t('USDT'), amountIn: u('100', 'CAKE') } },
    { name: 'WBNB→USDT 1', body: { tokenIn: t('WBNB'), tokenOut: t('USDT'), amountIn: u('1', 'WBNB') } },
    { name: 'WBNB→USDT 800 (split)', body: { tokenIn: t('WBNB'), tokenOut: t('USDT'), amountIn: u('800', 'WBNB') } },
    { name: 'ETH→WBNB 300', body: { tokenIn: t('ETH'), tokenOut: t('WBNB'), amountIn: u('300', 'ETH') } },
    { name: 'ETH→USDC 200', body: { tokenIn: t('ETH'), tokenOut: t('USDC'), amountIn: u('200', 'ETH') } },
    { name: 'DOGE→MEME 3 hops', body: { tokenIn: t('DOGE'), tokenOut: t('MEME'), amountIn: u('1000', 'DOGE') } },
    { name: 'BNB→USDT native in', body: { tokenIn: t('BNB'), tokenOut: t('USDT'), amountIn: u('2', 'BNB') } },
    { name: 'USDT→BNB native out', body: { tokenIn: t('USDT'), tokenOut: t('BNB'), amountIn: u('1500', 'USDT') } },
    { name: 'BNB→DOGE native V4 pool', body: { tokenIn: t('BNB'), tokenOut: t('DOGE'), amountIn: u('20', 'BNB') } },
    { name: 'ETH→WBNB 300 (V3 + V4 split)', body: { tokenIn: t('ETH'), tokenOut: t('WBNB'), amountIn: u('300', 'ETH') } },
    { name: 'MEME→CAKE (V2 + V4)', body: { tokenIn: t('MEME'), tokenOut: t('CAKE'), amountIn: u('100000', 'MEME') } },
  ];
}

export interface SpeedResult {
  warmP50Ms: number;
  warmP99Ms: number;
  coldP50Ms: number;
  coldP99Ms: number;
  buildsPerSecond8: number;
  /** Warm builds that simulate gas (eth_estimateGas with state overrides) instead of the model. */
  simulatedP50Ms: number;
  simulatedP99Ms: number;
  samples: { warm: number; cold: number; simulated: number };
  /** Every timed build (ms), in order, for spreads. */
  raw: { warm: number[]; cold: number[]; simulated: number[] };
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}/api/v1/route/build`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`route build failed ${res.status}: ${text}`);
}

export async function routeSpeed(rounds = 40): Promise<SpeedResult> {
  const dataDir = path.join(tempDir('svc-bench-'), 'data');
  const chain = await startDevchain({ dataDir });
  const backend = await BackendProcess.start({ dataDir, env: { EXPRESS_MODE: 'release' } });
  try {
    // The latency targets are for the model's gas figure; simulation is measured as its own row.
    const cases = scenarios(chain).map((c) => ({
      ...c,
      body: { chain: 'bsc', sender: chain.user.address, simulateGas: false, ...c.body },
    }));
    // Warm: the first pass fills the cache for this block; then every build is timed.
    for (const c of cases) await post(backend.swapUrl, c.body);
    const warm: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const c of cases) {
        const t0 = performance.now();
        await post(backend.swapUrl, c.body);
        warm.push(performance.now() - t0);
      }
    }
    // Throughput: 8 concurrent clients for ~3 s over the same scenarios.
    let done = 0;
    const until = performance.now() + 3000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async (_, k) => {
        for (let i = k; performance.now() < until; i++) {
          await post(backend.swapUrl, cases[i % cases.length].body);
          done += 1;
        }
      }),
    );
    const buildsPerSecond8 = done / ((performance.now() - started) / 1000);
    // The same warm builds with the gas simulation against the local node.
    const simulated: number[] = [];
    for (const c of cases) await post(backend.swapUrl, { ...c.body, simulateGas: true });
    for (let r = 0; r < Math.max(5, rounds / 4); r++) {
      for (const c of cases) {
        const t0 = performance.now();
        await post(backend.swapUrl, { ...c.body, simulateGas: true });
        simulated.push(performance.now() - t0);
      }
    }
    // Cold: a fresh source (empty pool cache) per build, straight against anvil.
    const cold: number[] = [];
    const settings = await loadChainSettings(path.join(dataDir, 'swap.yaml'), 'bsc', {});
    const sources = enabledSources(settings, undefined);
    for (let r = 0; r < Math.max(3, rounds / 8); r++) {
      for (const c of cases) {
        const source = new OnchainSource();
        const b = c.body as unknown as { tokenIn: string; tokenOut: string; amountIn: string };
        const t0 = performance.now();
        await source.findRoute(
          { chain: 'bsc', tokenIn: b.tokenIn, tokenOut: b.tokenOut, amountIn: BigInt(b.amountIn), sources },
          settings,
          new AbortController().signal,
        );
        cold.push(performance.now() - t0);
      }
    }
    return {
      warmP50Ms: median(warm),
      warmP99Ms: percentile(warm, 99),
      coldP50Ms: median(cold),
      coldP99Ms: percentile(cold, 99),
      buildsPerSecond8,
      simulatedP50Ms: median(simulated),
      simulatedP99Ms: percentile(simulated, 99),
      samples: { warm: warm.length, cold: cold.length, simulated: simulated.length },
      raw: { warm, cold, simulated },
    };
  } finally {
    await backend.stop();
    await chain.stop();
  }
}
