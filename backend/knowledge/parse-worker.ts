import { parentPort } from 'node:worker_threads';
import { runParseJob, type ParseJob } from './parse-job.js';

// The entry of the knowledge parse worker (parse-pool.ts starts it): one job at a time, each
// answered with chunk slices and then `done` or `failed`. The desktop bundle emits this file as
// `kb-parse-worker.mjs` beside the backend (vite.app.config.ts).

const port = parentPort;
if (!port) throw new Error('parse-worker.js runs as a worker thread');
port.on('message', (job: ParseJob) => void runParseJob(job, (m) => port.postMessage(m)));
