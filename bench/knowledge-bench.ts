/**
 * Knowledge figures (DESIGN 13, issue 32):
 * - ingestion throughput of text (parsing + chunking + FTS5 insert, no embedding), in process, and
 *   through the parse worker as the backend does it;
 * - hybrid search p50 at 100,000 chunks × 768 dimensions through the real backend (the query is
 *   embedded by a local server each time), and the backend's RSS increase once the vectors are loaded;
 * - a 100 MB folder of mixed files (Markdown, text, CSV, JSON, HTML) to ready with a local embedding
 *   server, and the backend's peak RSS (VmHWM) and user and system CPU time.
 * `KB_BENCH_SCALE` (0..1) shrinks the sizes for a quick run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chunkSegments } from '../backend/knowledge/chunker.js';
import { normalise } from '../backend/knowledge/embed-client.js';
import { KbIndex, textHash } from '../backend/knowledge/kb-index.js';
import { markdownSegments } from '../backend/knowledge/parse-docs.js';
import { parseInWorker } from '../backend/knowledge/parse-pool.js';
import { bagOfWords, startEmbeddingServer } from '../test/helpers/embedding-server.js';
import { TSC_BACKEND, figure, pair, rssMb, sleep, startListener, type Figure } from './bench-kit.js';

const MB = 1024 * 1024;
const SCALE = Math.min(1, Math.max(0.01, Number(process.env.KB_BENCH_SCALE ?? 1)));
const VOCAB = Array.from({ length: 20_000 }, (_, i) => `w${(i * 2654435761) % 1_000_003}`);

function prose(seed: number, words: number): string {
  let x = seed * 7919 + 1;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(VOCAB[x % VOCAB.length]);
  }
  return out.join(' ');
}

// The search bench's text follows Zipf's law, as natural language does (rank r drawn with weight
// 1 / r^1.07 over 50,000 words; the commonest hold nearly every chunk, most hold a few), and so do its
// 6-word queries. `prose` above is kept for the throughput rows: its LCG's low bits use 5,422 of its
// 20,000 words, each in about 17 % of 120-word chunks, a shape no language has.
const ZIPF_WORDS = 50_000;
const ZIPF_CDF = new Float64Array(ZIPF_WORDS);
for (let r = 0, acc = 0; r < ZIPF_WORDS; r++) ZIPF_CDF[r] = acc += 1 / Math.pow(r + 1, 1.07);

function zipfWord(rank: number): string {
  let w = '';
  for (let n = rank + 1; n > 0; n = Math.floor((n - 1) / 26)) w = String.fromCharCode(97 + ((n - 1) % 26)) + w;
  return w;
}

function zipfProse(seed: number, words: number): string {
  let x = (Math.imul(seed, 2654435761) + 1) >>> 0 || 1;
  const total = ZIPF_CDF[ZIPF_WORDS - 1];
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const u = (x / 4294967296) * total;
    let lo = 0;
    for (let hi = ZIPF_WORDS - 1; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (ZIPF_CDF[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    out.push(zipfWord(lo));
  }
  return out.join(' ');
}

function markdownDoc(seed: number, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let s = 0; size < bytes; s++) {
    const p = `## Section ${seed}.${s}\n\n${prose(seed * 1000 + s, 150)}\n\n`;
    parts.push(p);
    size += p.length;
  }
  return `# Document ${seed}\n\n${parts.join('')}`;
}

async function ingestionThroughput(): Promise<Figure> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-bench-ingest-'));
  const runs: number[] = [];
  try {
    const text = markdownDoc(1, Math.round(20 * MB * SCALE));
    for (let r = 0; r < 3; r++) {
      const { index } = await KbIndex.open(path.join(dir, `i${r}.sqlite`));
      index.addSource('src_bench', 'parsing', text.length);
      const t0 = performance.now();
      const chunks = chunkSegments(markdownSegments(text, true), { tokens: 512, overlap: 64 });
      index.tx(() => index.insertChunks('src_bench', null, chunks));
      const secs = (performance.now() - t0) / 1000;
      index.close();
      runs.push(Buffer.byteLength(text) / MB / secs);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figure(
    {
      group: 'knowledge',
      name: `ingest text (parse+chunk+FTS, ${Math.round(20 * SCALE)} MB Markdown)`,
      unit: 'MB/s',
      target: { on: 'median', op: '>=', value: 20 },
    },
    runs,
  );
}

/** The path the backend takes: read, parse and chunk in the parse worker, slices stored on this thread. */
async function ingestionThroughWorker(): Promise<Figure> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-bench-worker-'));
  const runs: number[] = [];
  try {
    const file = path.join(dir, 'doc.md');
    writeFileSync(file, markdownDoc(1, Math.round(20 * MB * SCALE)));
    const bytes = readFileSync(file).length;
    for (let r = 0; r < 3; r++) {
      const { index } = await KbIndex.open(path.join(dir, `w${r}.sqlite`));
      index.addSource('src_bench', 'parsing', bytes);
      const t0 = performance.now();
      await parseInWorker(
        { file, name: 'doc.md', docType: 'markdown', chunking: { tokens: 512, overlap: 64 } },
        new AbortController().signal,
        (chunks) => index.tx(() => index.insertChunks('src_bench', null, chunks)),
      );
      const secs = (performance.now() - t0) / 1000;
      index.close();
      runs.push(bytes / MB / secs);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figure(
    {
      group: 'knowledge',
      name: `ingest text through the parse worker (read+parse+chunk in the worker, FTS here, ${Math.round(20 * SCALE)} MB Markdown)`,
      unit: 'MB/s',
      target: { on: 'median', op: '>=', value: 20 },
    },
    runs,
  );
}

/** A data directory holding one ready KB of `n` chunks with `dims`-dimension vectors of model emb:bow. */
async function seededKb(dataDir: string, n: number, dims: number): Promise<string> {
  const id = 'kb_00000000be0c';
  const dir = path.join(dataDir, 'knowledge', id);
  mkdirSync(path.join(dir, 'files'), { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  const sid = 'src_00000000be0c';
  writeFileSync(
    path.join(dir, 'kb.json'),
    JSON.stringify({
      id,
      name: 'bench',
      description: '',
      embedding: { model: 'emb:bow', dimensions: dims },
      rerank: null,
      chunking: { tokens: 512, overlap: 64 },
      created_at: now,
      updated_at: now,
      sources: [
        { id: sid, kind: 'file', name: 'bench.txt', created_at: now, sha256: '0'.repeat(64), doc_type: 'text', mime: 'text/plain' },
      ],
    }),
  );
  const { index } = await KbIndex.open(path.join(dir, 'index.sqlite'));
  index.addSource(sid, 'ready', 0);
  for (let start = 0; start < n; start += 5000) {
    const chunks = Array.from({ length: Math.min(5000, n - start) }, (_, i) => ({
      text: zipfProse(start + i + 1, 120),
      location: { line_start: start + i + 1 },
    }));
    index.tx(() => index.insertChunks(sid, null, chunks));
    index.putVectors(
      'emb:bow',
      chunks.map((c) => ({ hash: textHash(c.text), vec: normalise(Float32Array.from(bagOfWords(c.text, dims))) })),
    );
  }
  index.update(sid, { parsed: 1, chunks_total: n, state: 'ready' });
  index.close();
  return id;
}

async function withBackend<T>(dataDir: string, fn: (url: string, credential: string, pid: number) => Promise<T>): Promise<T> {
  const backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', dataDir], { EXPRESS_MODE: 'release' });
  try {
    const credential = await pair(backend);
    return await fn(backend.url, credential, backend.child.pid as number);
  } finally {
    await backend.stop();
  }
}

async function call(url: string, credential: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function addProvider(url: string, credential: string, baseUrl: string): Promise<void> {
  await call(url, credential, 'POST', '/api/config/providers', {
    id: 'emb',
    name: 'emb',
    type: 'compat',
    base_url: baseUrl,
    models: [{ id: 'bow', kind: 'embedding' }],
  });
}

async function hybridAtScale(): Promise<Figure[]> {
  const n = Math.round(100_000 * SCALE);
  const dims = 768;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kb-bench-search-'));
  const emb = await startEmbeddingServer({ dims });
  try {
    const dataDir = path.join(tmp, 'data');
    const kb = await seededKb(dataDir, n, dims);
    return await withBackend(dataDir, async (url, credential, pid) => {
      await addProvider(url, credential, emb.baseUrl);
      await call(url, credential, 'GET', `/api/knowledge/${kb}`);
      await sleep(500);
      const before = rssMb(pid);
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = performance.now();
        const res = await call(url, credential, 'POST', `/api/knowledge/${kb}/search`, {
          query: zipfProse(1_000_000 + i * 37, 6),
          top_k: 8,
          mode: 'hybrid',
        });
        const ms = performance.now() - t0;
        if (res.mode !== 'hybrid') throw new Error(`searched ${res.mode}`);
        if (i >= 5) times.push(ms); // the first searches load the vectors
      }
      const after = rssMb(pid);
      return [
        figure(
          {
            group: 'knowledge',
            name: `hybrid search p50 (${n.toLocaleString('en-US')} chunks × ${dims})`,
            unit: 'ms',
            target: { on: 'median', op: '<=', value: 50 },
          },
          times,
          'p25–p75',
        ),
        figure(
          {
            group: 'knowledge',
            name: `backend RSS increase, vectors loaded (${n.toLocaleString('en-US')} × ${dims})`,
            unit: 'MB',
            target: { on: 'median', op: '<=', value: 150 },
          },
          [after - before],
        ),
      ];
    });
  } finally {
    await emb.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** User and system CPU seconds the process has used so far (/proc/<pid>/stat, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function folderToReady(): Promise<Figure[]> {
  const total = Math.round(100 * MB * SCALE);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kb-bench-folder-'));
  const emb = await startEmbeddingServer({ dims: 384 });
  try {
    const folder = path.join(tmp, 'docs');
    let size = 0;
    let written = 0;
    for (let i = 0; size < total; i++, written++) {
      const sub = path.join(folder, `d${i % 20}`);
      mkdirSync(sub, { recursive: true });
      const body = prose(i, 40_000 + (i % 7) * 5000);
      const kind = i % 5;
      const [name, text] =
        kind === 0
          ? [`f${i}.md`, markdownDoc(i, body.length)]
          : kind === 1
            ? [`f${i}.txt`, body]
            : kind === 2
              ? [`f${i}.csv`, `a,b,c\n${body.replace(/ /g, (_m, o: number) => (o % 3 ? ',' : '\n'))}`]
              : kind === 3
                ? [`f${i}.json`, JSON.stringify({ items: body.split(' ') }, null, 1)]
                : [
                    `f${i}.html`,
                    `<!doctype html><html><head><title>p${i}</title></head><body><article><h1>Page ${i}</h1><p>${body}</p></article></body></html>`,
                  ];
      writeFileSync(path.join(sub, name), text);
      size += Buffer.byteLength(text);
    }
    const dataDir = path.join(tmp, 'data');
    return await withBackend(dataDir, async (url, credential, pid) => {
      await addProvider(url, credential, emb.baseUrl);
      const kb = await call(url, credential, 'POST', '/api/knowledge', { name: 'folder', embedding: { model: 'emb:bow' } });
      const t0 = performance.now();
      const src = await call(url, credential, 'POST', `/api/knowledge/${kb.id}/sources`, { kind: 'folder', path: folder });
      let state = '';
      let chunks = 0;
      let files = 0;
      while (state !== 'ready') {
        await sleep(250);
        const s = (await call(url, credential, 'GET', `/api/knowledge/${kb.id}/sources`)).sources[0];
        state = s.state;
        chunks = s.chunks_total;
        files = s.files;
        if (state === 'failed') throw new Error(`folder failed: ${JSON.stringify(s.error)}`);
      }
      void src;
      const secs = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(pid);
      return [
        figure(
          {
            group: 'knowledge',
            name: `${Math.round(size / MB)} MB mixed folder to ready (${written} files, ${files} indexed, ${chunks.toLocaleString('en-US')} chunks, local embeddings)`,
            unit: 's',
          },
          [secs],
        ),
        figure({ group: 'knowledge', name: 'backend peak RSS during the folder ingestion', unit: 'MB' }, [peakRssMb(pid)]),
        figure({ group: 'knowledge', name: 'backend user CPU, start to folder ready', unit: 's' }, [cpu.user]),
        figure({ group: 'knowledge', name: 'backend system CPU, start to folder ready', unit: 's' }, [cpu.system]),
      ];
    });
  } finally {
    await emb.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function knowledgeFigures(): Promise<Figure[]> {
  const only = process.env.KB_BENCH_ONLY;
  return [
    ...(!only || only === 'ingest' ? [await ingestionThroughput(), await ingestionThroughWorker()] : []),
    ...(!only || only === 'search' ? await hybridAtScale() : []),
    ...(!only || only === 'folder' ? await folderToReady() : []),
  ];
}
