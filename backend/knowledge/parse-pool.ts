import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChunkDraft } from './chunker.js';
import { IngestFailure } from './ingest-failure.js';
import type { ParseDone, ParseJob, ParseMessage } from './parse-job.js';

// Parsing and chunking off the main thread (DESIGN 13): a small pool of worker threads shared by
// every knowledge base. A worker has its own heap limit, so a hostile file (a decompression bomb, a
// document nested a million deep) ends that worker and fails its source, never the backend. A
// pause or removal ends the worker at once; an idle worker goes after a while, freeing its heap.

/**
 * The worker's entry. The desktop bundle rewrites this line (vite.app.config.ts) to point at the
 * `kb-parse-worker.mjs` it emits; `dist/` (tsc) has parse-worker.js beside this file.
 */
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

const DEFAULT_HEAP_MB = 1024;
const IDLE_MS = 30_000;
/** One worker on a 2-core machine (the backend's own thread needs the other), two at most. */
const MAX_WORKERS = Math.max(1, Math.min(2, os.availableParallelism() - 1));

/** A parse still running after this is stopped: a safety net for shapes a parser takes forever on. */
const DEFAULT_DEADLINE_MS = 10 * 60_000;

/** `SERVICE_KB_PARSE_TIMEOUT_MS`: a test knob that may only shorten the deadline. */
function deadlineMs(): number {
  const n = Number(process.env.SERVICE_KB_PARSE_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(n, DEFAULT_DEADLINE_MS) : DEFAULT_DEADLINE_MS;
}

/** `SERVICE_KB_PARSE_HEAP_MB`: a test knob that may only lower the worker's heap limit. */
function heapLimitMb(): number {
  const n = Number(process.env.SERVICE_KB_PARSE_HEAP_MB);
  return Number.isFinite(n) && n >= 16 ? Math.min(n, DEFAULT_HEAP_MB) : DEFAULT_HEAP_MB;
}

const idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
const waiting: (() => void)[] = [];
let started = 0;

function spawn(): Worker {
  const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: heapLimitMb() } });
  started++;
  worker.once('exit', () => {
    started--;
    const i = idle.findIndex((e) => e.worker === worker);
    if (i >= 0) clearTimeout(idle.splice(i, 1)[0].timer);
    waiting.shift()?.();
  });
  // Errors reach the job that runs (drive below); one arriving while idle must not crash the backend.
  worker.on('error', () => undefined);
  return worker;
}

async function acquire(signal: AbortSignal): Promise<Worker> {
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const free = idle.pop();
    if (free) {
      clearTimeout(free.timer);
      free.worker.ref();
      return free.worker;
    }
    if (started < MAX_WORKERS) return spawn();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

function release(worker: Worker, healthy: boolean): void {
  if (!healthy) {
    void worker.terminate(); // its exit frees the slot and wakes a waiter
    return;
  }
  worker.unref(); // an idle worker never keeps the process alive
  const timer = setTimeout(() => void worker.terminate(), IDLE_MS);
  timer.unref();
  idle.push({ worker, timer });
  waiting.shift()?.();
}

function crashed(name: string, err: Error & { code?: string }): IngestFailure {
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new IngestFailure('parse_failed', `${name} needs more memory to parse than a parser may use (${heapLimitMb()} MB).`);
  return new IngestFailure('parse_failed', `The parser stopped while reading ${name}: ${err.message}`);
}

/**
 * Parses `job` in a worker. `onChunks` receives the slices in order, each in its own turn of the
 * event loop (so requests are answered between them); a failure, a crash or the signal rejects.
 */
export async function parseInWorker(job: ParseJob, signal: AbortSignal, onChunks: (chunks: ChunkDraft[]) => void): Promise<ParseDone> {
  const worker = await acquire(signal);
  let healthy = false;
  let answer: ParseDone | IngestFailure;
  try {
    answer = await drive(worker, job, signal, onChunks);
    healthy = true; // a file the worker refused leaves the worker as good as before
  } finally {
    release(worker, healthy);
  }
  if (answer instanceof IngestFailure) throw answer;
  return answer;
}

/** The worker's answer (`done`, or its `failed` as an IngestFailure); rejects on a crash or the signal. */
function drive(
  worker: Worker,
  job: ParseJob,
  signal: AbortSignal,
  onChunks: (c: ChunkDraft[]) => void,
): Promise<ParseDone | IngestFailure> {
  return new Promise<ParseDone | IngestFailure>((resolve, reject) => {
    const queue: ParseMessage[] = [];
    let scheduled = false;
    let settled = false;
    const finish = (err: unknown, done?: ParseDone | IngestFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      signal.removeEventListener('abort', onAbort);
      if (done) resolve(done);
      else reject(err);
    };
    const handle = (m: ParseMessage) => {
      if (m.type === 'chunks') onChunks(m.chunks);
      else if (m.type === 'done') finish(null, m);
      else {
        const failure = new IngestFailure(m.code, m.message);
        if (m.stack) failure.stack = m.stack;
        finish(null, failure);
      }
    };
    // Messages that arrived together are taken one per turn: never one long block of inserts.
    const schedule = () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(pump);
    };
    const pump = () => {
      scheduled = false;
      const m = queue.shift();
      if (!m || settled) return;
      try {
        handle(m);
      } catch (err) {
        finish(err);
        return;
      }
      if (queue.length) schedule();
    };
    const onMessage = (m: ParseMessage) => {
      queue.push(m);
      schedule();
    };
    const onError = (err: Error) => finish(crashed(job.name, err));
    const onExit = (code: number) => finish(crashed(job.name, new Error(`the worker exited with code ${code}`)));
    const onAbort = () => finish(signal.reason);
    const limit = deadlineMs();
    const deadline = setTimeout(() => {
      const after = limit >= 60_000 ? `${Math.round(limit / 60_000)} minutes` : `${Math.round(limit / 1000)} seconds`;
      finish(new IngestFailure('parse_failed', `${job.name} was still being parsed after ${after} and was stopped.`));
    }, limit);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage(job);
  });
}
