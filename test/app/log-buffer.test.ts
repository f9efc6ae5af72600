import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import { LineSplitter } from '../../app/logs/line-splitter.js';
import { LOG_CAPACITY, LogRing } from '../../app/logs/ring-buffer.js';

describe('log ring buffer', () => {
  it('keeps exactly the 2000 most recent lines, oldest first', () => {
    assert.equal(LOG_CAPACITY, 2000);
    const ring = new LogRing();
    for (let i = 1; i <= 2500; i++) ring.append(i % 2 ? 'stdout' : 'stderr', `line ${i}`);
    const lines = ring.since(0);
    assert.equal(lines.length, 2000);
    assert.equal(ring.size, 2000);
    assert.equal(lines[0].line, 'line 501');
    assert.equal(lines[1999].line, 'line 2500');
    assert.deepEqual(
      lines.slice(0, 2).map((l) => [l.seq, l.stream]),
      [
        [501, 'stdout'],
        [502, 'stderr'],
      ],
    );
    assert.deepEqual(
      ring.since(2498).map((l) => l.line),
      ['line 2499', 'line 2500'],
    );
    assert.deepEqual(
      ring.tail(1).map((l) => l.line),
      ['line 2500'],
    );
  });

  it('holds fewer lines before it is full', () => {
    const ring = new LogRing();
    ring.append('stdout', 'a');
    assert.deepEqual(
      ring.since().map((l) => l.line),
      ['a'],
    );
  });
});

describe('line splitting', () => {
  const split = (chunks: string[], max?: number) => {
    const out: string[] = [];
    const splitter = new LineSplitter((l) => out.push(l), max);
    for (const c of chunks) splitter.push(c);
    return { out, splitter };
  };

  it('joins partial lines across chunks and waits for the newline', () => {
    const { out, splitter } = split(['list', 'ening on http://127', '.0.0.1:8080\npart']);
    assert.deepEqual(out, ['listening on http://127.0.0.1:8080']);
    splitter.flush();
    assert.deepEqual(out, ['listening on http://127.0.0.1:8080', 'part']);
  });

  it('strips CRLF, also when CR and LF arrive in different chunks', () => {
    const { out } = split(['one\r\ntwo\r', '\nthree\n\n']);
    assert.deepEqual(out, ['one', 'two', 'three', '']);
  });

  it('caps very long lines and says how much was dropped', () => {
    const { out } = split(['x'.repeat(50), 'y'.repeat(60) + '\r\nnext\n'], 100);
    assert.equal(out.length, 2);
    assert.equal(out[0], 'x'.repeat(50) + 'y'.repeat(50) + ' … [line truncated, 10 more characters]');
    assert.equal(out[1], 'next');
  });
});

describe('pairing code from the log', () => {
  it('takes the newest code, clears it when paired, sets it again on a new code', () => {
    const log = new LogBuffer();
    const seen: (string | null)[] = [];
    // A function, so assert's narrowing of one read does not stick to the next.
    const code = () => log.pairingCode?.code ?? null;
    log.onPairingCode((c) => seen.push(c?.code ?? null));
    log.write('stdout', 'listening on http://127.0.0.1:8080\npairing code: 111111 (expires 2026-11-22T12:00:00Z)\n');
    assert.deepEqual(log.pairingCode, { code: '111111', expiresAt: '2026-11-22T12:00:00Z' });
    log.write('stdout', 'pairing code: 222222 (expires 2026-11-23T12:00:00Z)\r\n');
    assert.equal(code(), '222222');
    log.write('stderr', 'pairing code: 999999 (expires 2026-11-23T12:00:00Z)\n');
    assert.equal(code(), '222222', 'stderr lines never set the code');
    log.write('stdout', 'paired with my laptop\n');
    assert.equal(code(), null);
    log.write('stdout', 'pairing reset\npairing code: 333333 (expires 2026-11-24T12:00:00Z)\n');
    assert.equal(code(), '333333');
    assert.deepEqual(seen, ['111111', '222222', null, '333333']);
  });

  it('ignores lines that only look like a code line', () => {
    const log = new LogBuffer();
    log.write('stdout', 'pairing code: 12345 (expires soon)\npaired with nobody\n');
    assert.equal(log.pairingCode, null);
  });
});
