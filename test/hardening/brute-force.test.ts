import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, describe, it } from 'node:test';
import { BackendProcess } from '../helpers/backend-process.js';
import { isEnvelope, jsonPost, keepAliveAgent, pool, type Reply } from './harness.js';

const WINDOW_MS = 3000;
const BUDGET = 10;
const ATTEMPTS = 10_000;
/**
 * A hang detector for one request of the 50-way flood, not a speed check: on a machine loaded far
 * past its two cores (a parallel suite and a CPU burner), one of 10,000 requests queued 50 at a
 * time waited more than the default 10 s for its answer.
 */
const FLOOD_REQUEST_DEADLINE_MS = 60_000;
const CODE_LINE = /^pairing code: (\d{6}) \(expires/;

interface Source {
  label: string;
  connect: string;
  localAddress?: string;
  agent: http.Agent;
}

function wrongCode(right: string | undefined, i: number): string {
  const guess = String(i % 1_000_000).padStart(6, '0');
  return guess === right ? String((i + 1) % 1_000_000).padStart(6, '0') : guess;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** What a flood of wrong claims must look like: no 200, budgeted 401s, every other answer a 429. */
function checkFlood(results: Reply[], elapsedMs: number): number {
  let unauthorized = 0;
  for (const r of results) {
    assert.ok(isEnvelope(r.json), `envelope: ${r.text}`);
    if (r.status === 401) {
      unauthorized += 1;
      assert.equal(r.json.error.code, 'invalid_pairing');
      continue;
    }
    assert.equal(r.status, 429, `never anything but 401 or 429: ${r.status} ${r.text}`);
    assert.equal(r.json.error.code, 'too_many_requests');
    const wait = Number(r.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= WINDOW_MS / 1000, `Retry-After ${r.headers['retry-after']}`);
  }
  // A sliding window: at most BUDGET failures in any WINDOW_MS span of the run.
  const windows = Math.floor(elapsedMs / WINDOW_MS) + 1;
  assert.ok(unauthorized >= BUDGET, `the first ${BUDGET} wrong codes are answered 401`);
  assert.ok(unauthorized <= BUDGET * windows, `${unauthorized} guesses checked in ${elapsedMs} ms, budget ${BUDGET * windows}`);
  return unauthorized;
}

describe('brute force of the pairing code', () => {
  const procs: BackendProcess[] = [];
  const agents: http.Agent[] = [];
  after(async () => {
    for (const a of agents) a.destroy();
    for (const p of procs) {
      await p.stop();
      p.cleanup();
    }
  });
  // Release mode, as shipped: throttled answers are not access-logged (10 000 lines would be noise).
  const env = { SERVICE_PAIRING_FAILURE_WINDOW_MS: String(WINDOW_MS), EXPRESS_MODE: 'release' };
  function source(label: string, connect: string, localAddress?: string): Source {
    const agent = keepAliveAgent(50);
    agents.push(agent);
    return { label, connect, localAddress, agent };
  }

  it('10 000 sequential wrong claims from several loopback addresses: budgeted, rotated, then the right code works', async () => {
    const proc = await BackendProcess.start({ env });
    procs.push(proc);
    await proc.waitForLine(CODE_LINE);
    // Every 127/8 address is local on Linux: a per-IP budget would be evaded by switching.
    const sources = [
      source('127.0.0.1', '127.0.0.1'),
      source('127.0.0.2', '127.0.0.1', '127.0.0.2'),
      source('127.0.0.3', '127.0.0.1', '127.0.0.3'),
    ];
    const results: Reply[] = [];
    const started = Date.now();
    for (let i = 0; i < ATTEMPTS; i++) {
      const s = sources[i % sources.length];
      results.push(await jsonPost(proc.port, '/api/pairing/claim', { pairing_code: wrongCode(proc.pairingCode(), i) }, s));
    }
    const elapsed = Date.now() - started;
    const unauthorized = checkFlood(results, elapsed);
    assert.deepEqual(
      results.slice(0, BUDGET + 1).map((r) => r.status),
      [...Array(BUDGET).fill(401), 429],
    );

    // A new code after every 5 failures against one code.
    const expectedCodes = 1 + Math.floor(unauthorized / 5);
    const codeLines = () => proc.lines.filter((l) => CODE_LINE.test(l.line)).length;
    for (let t = 0; t < 50 && codeLines() < expectedCodes; t++) await sleep(20);
    assert.equal(codeLines(), expectedCodes, `${unauthorized} failures → ${expectedCodes - 1} rotations`);

    // While throttled, even the right code is not checked.
    // On a slow machine the flood can outlast the (shortened) window: then this claim is the one
    // that pairs, and a second would be a 409.
    const throttled = await jsonPost(proc.port, '/api/pairing/claim', { pairing_code: proc.pairingCode() }, sources[0]);
    assert.ok([200, 429].includes(throttled.status), throttled.text);
    let ok = throttled;
    if (throttled.status === 429) {
      await sleep(Number(throttled.headers['retry-after']) * 1000 + 50);
      ok = await jsonPost(proc.port, '/api/pairing/claim', { pairing_code: proc.pairingCode() }, sources[1]);
    }
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.json.credential, /^svc_/);
  });

  it('10 000 wrong claims 50-way concurrent from 127.0.0.1, ::ffff:127.0.0.1 and ::1: one global budget; exactly one 200 among right claims', async () => {
    // Bound on the dual-stack wildcard so that both address families reach the same service.
    const proc = await BackendProcess.start({ env, args: ['-host', '::', '-allow-insecure-remote'] });
    procs.push(proc);
    await proc.waitForLine(CODE_LINE);
    const sources = [
      source('::ffff:127.0.0.1 (via 127.0.0.1)', '127.0.0.1'),
      source('::ffff:127.0.0.1', '::ffff:127.0.0.1'),
      source('::1', '::1'),
    ];
    const started = Date.now();
    const results = await pool(
      Array.from({ length: ATTEMPTS }, (_, i) => i),
      50,
      (i) =>
        jsonPost(
          proc.port,
          '/api/pairing/claim',
          { pairing_code: wrongCode(proc.pairingCode(), i) },
          {
            ...sources[i % sources.length],
            headers: { host: `localhost:${proc.port}` },
            timeoutMs: FLOOD_REQUEST_DEADLINE_MS,
          },
        ),
    );
    checkFlood(results, Date.now() - started);
    for (const s of sources) {
      const mine = results.filter((_, i) => i % sources.length === sources.indexOf(s));
      assert.ok(
        mine.some((r) => r.status === 429),
        `${s.label} is throttled too`,
      );
    }

    const probe = await jsonPost(
      proc.port,
      '/api/pairing/claim',
      { pairing_code: wrongCode(proc.pairingCode(), 0) },
      { ...sources[0], headers: { host: 'localhost' } },
    );
    if (probe.status === 429) await sleep(Number(probe.headers['retry-after']) * 1000 + 50);
    await sleep(100); // the log line of a rotation the probe caused reaches us through a pipe
    const code = proc.pairingCode();
    const right = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        jsonPost(proc.port, '/api/pairing/claim', { pairing_code: code }, { ...sources[i % 3], headers: { host: 'localhost' } }),
      ),
    );
    const statuses = right.map((r) => r.status).sort((a, b) => a - b);
    assert.deepEqual(
      statuses,
      [200, ...Array(49).fill(409)],
      right
        .map((r) => r.text)
        .join('\n')
        .slice(0, 500),
    );
  });
});
