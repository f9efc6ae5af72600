/**
 * History at any size (DESIGN 10), as ratios measured in one run: a backend holding one
 * 100,000-message session (about 206 MB), a 10-message one, a workspace of 3,000 sessions and one
 * of 10, against a second backend whose whole history is about 1 MB (for search). Figures: first
 * page, turn start (POST → the provider receives the request), search p50, a list page, and the
 * big backend's RSS after all of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeSession } from '../test/helpers/history-gen.js';
import { TSC_BACKEND, figure, pair, pairedRatio, rssMb, sleep, startListener, type Figure, type Listener } from './bench-kit.js';
import { median, percentile } from './stats.js';

const NEEDLE = 'quetzalcoatl';
const NEEDLE_EVERY = 5000;

/** A provider that stamps when each request arrives and answers at once. */
async function stampingProvider(): Promise<{ url: string; arrivals: number[]; server: Server }> {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const delta = (d: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'x', model: 'm1', choices: [{ index: 0, delta: d, finish_reason: finish }] })}\n\n`;
      res.end(`${delta({ content: 'ok' })}${delta({}, 'stop')}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  return { url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, arrivals, server };
}

interface Backend {
  listener: Listener;
  credential: string;
  call: (method: string, p: string, body?: unknown) => Promise<any>;
}

async function backend(
  dataDir: string,
  providerUrl: string,
  workspaces: string[],
  paired?: string,
): Promise<{ b: Backend; ids: string[] }> {
  const listener = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', dataDir], { EXPRESS_MODE: 'release' });
  const credential = paired ?? (await pair(listener));
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${listener.url}${p}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  // A restart finds the provider, profile and workspaces already there.
  if (workspaces.length === 0) return { b: { listener, call, credential }, ids: [] };
  await call('POST', '/api/config/providers', {
    id: 'p',
    name: 'P',
    type: 'compat',
    base_url: `${providerUrl}/v1`,
    models: [{ id: 'm1', context_window: 32_000 }],
  });
  await call('PUT', '/api/config/defaults', { provider: 'p', model: 'm1' });
  await call('PUT', '/api/profiles/bench', { compression: { enabled: false } });
  const ids: string[] = [];
  for (const name of workspaces) ids.push((await call('POST', '/api/workspaces', { name, profile_id: 'bench' })).id);
  return { b: { listener, call, credential }, ids };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Waits until the search index has caught up with every log (after the generated history appeared). */
async function indexed(b: Backend): Promise<void> {
  for (;;) {
    const r = await b.call('GET', `/api/search?q=${NEEDLE}&limit=1`);
    if (!r.indexing) return;
    await sleep(500);
  }
}

export async function historyFigures(rounds = 15): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-history-'));
  const provider = await stampingProvider();
  const backends: Backend[] = [];
  try {
    // Backends first (workspaces via the API), then the history written beside them, then a restart
    // so that the index catches up with it as it would after an upgrade.
    const bigDir = path.join(tmp, 'big');
    const smallDir = path.join(tmp, 'small');
    let big = await backend(bigDir, provider.url, ['history', 'many', 'few']);
    let small = await backend(smallDir, provider.url, ['history']);
    const [wsHistory, wsMany, wsFew] = big.ids;
    const sessions = (dir: string, ws: string) => path.join(dir, 'workspaces', ws, 'sessions');
    const extra = (i: number) => (i % NEEDLE_EVERY === 0 ? NEEDLE : '');
    await writeSession(path.join(sessions(bigDir, wsHistory), 's-big'), 's-big', { messages: 100_000, textChars: 1900, extra });
    await writeSession(path.join(sessions(bigDir, wsHistory), 's-small'), 's-small', { messages: 10, textChars: 1900 });
    for (let i = 0; i < 3000; i++)
      await writeSession(path.join(sessions(bigDir, wsMany), `s-${i}`), `s-${i}`, { messages: 2, start: i * 1000 });
    for (let i = 0; i < 10; i++)
      await writeSession(path.join(sessions(bigDir, wsFew), `s-${i}`), `s-${i}`, { messages: 2, start: i * 1000 });
    await writeSession(path.join(sessions(smallDir, small.ids[0]), 's-1mb'), 's-1mb', {
      messages: 500,
      textChars: 1900,
      extra: (i) => extra(i * 200),
    });
    await big.b.listener.stop();
    await small.b.listener.stop();
    big = { ...big, b: (await backend(bigDir, provider.url, [], big.b.credential)).b };
    small = { ...small, b: (await backend(smallDir, provider.url, [], small.b.credential)).b };
    backends.push(big.b, small.b);
    const t0 = performance.now();
    await Promise.all([indexed(big.b), indexed(small.b)]);
    const indexSeconds = (performance.now() - t0) / 1000;

    const session = (sid: string) => `/api/workspaces/${wsHistory}/sessions/${sid}`;
    // Warm: the first open builds each session's offset index (a one-time cost, reported separately).
    const firstOpen = await timed(() => big.b.call('GET', session('s-big')));
    await big.b.call('GET', session('s-small'));
    const pageBig: number[] = [];
    const pageSmall: number[] = [];
    for (let r = 0; r < rounds; r++) {
      pageBig.push(await timed(() => big.b.call('GET', session('s-big'))));
      pageSmall.push(await timed(() => big.b.call('GET', session('s-small'))));
    }

    const turnStart = async (sid: string) => {
      const before = provider.arrivals.length;
      const t = performance.now();
      await big.b.call('POST', `${session(sid)}/messages`, { content: 'and then?' });
      while (provider.arrivals.length === before) await sleep(1);
      const ms = provider.arrivals[before] - t;
      // Let the turn finish before the next one in that session.
      for (;;) {
        const s = await big.b.call('GET', `${session(sid)}?limit=1`);
        if (!s.active_turn) return ms;
        await sleep(5);
      }
    };
    const turnBig: number[] = [];
    const turnSmall: number[] = [];
    for (let r = 0; r < Math.ceil(rounds / 2); r++) {
      turnBig.push(await turnStart('s-big'));
      turnSmall.push(await turnStart('s-small'));
    }

    const searchBig: number[] = [];
    const searchSmall: number[] = [];
    for (let r = 0; r < rounds * 2; r++) {
      searchBig.push(await timed(() => big.b.call('GET', `/api/search?q=${NEEDLE}&limit=20`)));
      searchSmall.push(await timed(() => small.b.call('GET', `/api/search?q=${NEEDLE}&limit=20`)));
    }

    await big.b.call('GET', `/api/workspaces/${wsMany}/sessions?limit=10`);
    const listMany: number[] = [];
    const listFew: number[] = [];
    for (let r = 0; r < rounds; r++) {
      listMany.push(await timed(() => big.b.call('GET', `/api/workspaces/${wsMany}/sessions?limit=10`)));
      listFew.push(await timed(() => big.b.call('GET', `/api/workspaces/${wsFew}/sessions?limit=10`)));
    }
    const rss = rssMb(big.b.listener.child.pid!);

    const group = 'history';
    const base = (name: string, subject: number[], baseline: number[]) => ({
      name,
      median: median(baseline),
      ratio: pairedRatio(subject, baseline),
    });
    return [
      figure(
        {
          group,
          name: 'first page, 100,000-message session (206 MB)',
          unit: 'ms',
          baseline: base('10-message session', pageBig, pageSmall),
          target: { on: 'ratio', op: '<=', value: 1.5 },
          note: `first open after start (offset index built from the log): ${firstOpen.toFixed(0)} ms`,
        },
        pageBig,
      ),
      figure(
        {
          group,
          name: 'turn start (POST → provider), 100,000-message session',
          unit: 'ms',
          baseline: base('10-message session', turnBig, turnSmall),
          target: { on: 'ratio', op: '<=', value: 1.5 },
        },
        turnBig,
      ),
      figure(
        {
          group,
          name: 'search p50, 200 MB of history',
          unit: 'ms',
          baseline: { name: '1 MB of history', median: median(searchSmall), ratio: median(searchBig) / median(searchSmall) },
          target: { on: 'ratio', op: '<=', value: 3 },
          note: `p50 ${percentile(searchBig, 50).toFixed(1)} ms (goal ≤ 50 ms), p95 ${percentile(searchBig, 95).toFixed(1)} ms; index caught up with 206 MB in ${indexSeconds.toFixed(0)} s after start`,
        },
        searchBig,
        'p25–p75',
      ),
      figure(
        {
          group,
          name: 'search p50 over 200 MB (absolute)',
          unit: 'ms',
          target: { on: 'median', op: '<=', value: 50 },
        },
        searchBig,
        'p25–p75',
      ),
      figure(
        {
          group,
          name: 'session list page (limit 10), 3,000 sessions',
          unit: 'ms',
          baseline: base('10 sessions', listMany, listFew),
          target: { on: 'ratio', op: '<=', value: 1.5 },
        },
        listMany,
      ),
      figure({ group, name: 'backend RSS after all of it', unit: 'MB', target: { on: 'median', op: '<=', value: 150 } }, [rss]),
    ];
  } finally {
    for (const b of backends) await b.listener.stop();
    provider.server.closeAllConnections();
    provider.server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
