import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { isEnvelope, jsonPost, send, swapListener, type Reply } from './harness.js';

const TWO_256 = (1n << 256n).toString();
const USDT = '0x55d398326f99059fF775485246999027B3197955';
const USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const BUILD = { chain: 'bsc', tokenIn: USDT, tokenOut: USDC, amountIn: '1000', sender: '0x1111111111111111111111111111111111111111' };

let proc: BackendProcess;
let credential: string;
let swapPort: number;
const auth = () => ({ authorization: `Bearer ${credential}` });

function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Derived binary indexes (search-index.sqlite, events.idx): not documents, rebuilt when damaged. */
const DERIVED = /(^|\/)(search-index\.sqlite(-wal|-shm)?|events\.idx)$/;

/** Every file in the data directory, read as strict UTF-8 (throws on a torn or invalid file). */
function dataFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (!DERIVED.test(full))
        out.set(path.relative(proc.dataDir, full), new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(full)));
    }
  };
  walk(proc.dataDir);
  return out;
}

function expect4xx(r: Reply, status: number, code: string, label: string): void {
  assert.equal(r.status, status, `${label}: ${r.text.slice(0, 200)}`);
  assert.ok(isEnvelope(r.json), `${label}: envelope`);
  assert.equal(r.json.error.code, code, label);
}

before(async () => {
  ({ proc, credential } = await startPaired());
  swapPort = (await swapListener(proc)).port;
});

after(async () => {
  await proc.stop();
  proc.cleanup();
});

describe('targeted bad input', () => {
  it('refuses oversized bodies with 413, sent with a length or streamed chunked', async () => {
    const mib = 'x'.repeat(1024 * 1024 + 1);
    expect4xx(await jsonPost(proc.port, '/api/pairing/claim', { pairing_code: '1'.repeat(4100) }), 413, 'payload_too_large', 'claim 4 KiB');
    expect4xx(
      await jsonPost(proc.port, '/api/config/providers', { id: 'p', name: mib }, { headers: auth() }),
      413,
      'payload_too_large',
      'provider 1 MiB',
    );
    expect4xx(await jsonPost(swapPort, '/api/v1/route/build', { ...BUILD, pad: mib }), 413, 'payload_too_large', 'route build 1 MiB');
    const chunked = await send(swapPort, {
      method: 'POST',
      path: '/api/v1/route/build',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: JSON.stringify({ pad: mib }),
    });
    expect4xx(chunked, 413, 'payload_too_large', 'chunked 1 MiB');
  });

  it('refuses deeply nested JSON with a 400 on every writing endpoint, and accepts ordinary nesting', async () => {
    const targets: [number, string, string, (inner: string) => string][] = [
      [proc.port, 'PUT', '/api/profiles/deep', (d) => `{"extra":${d}}`],
      [proc.port, 'POST', '/api/config/providers', (d) => `{"id":"deep","name":"Deep","type":"compat","x":${d}}`],
      [proc.port, 'PUT', '/api/mcp/global', (d) => `{"mcpServers":{},"other":${d}}`],
      [proc.port, 'POST', '/api/workspaces', (d) => `{"name":"w","x":${d}}`],
      [proc.port, 'PUT', '/api/skills/deep', (d) => `{"content":${d}}`],
      [swapPort, 'POST', '/api/v1/route/build', (d) => `{"chain":"bsc","x":${d}}`],
    ];
    const before = dataFiles();
    for (const [port, method, p, body] of targets) {
      for (const depth of [65, 1000, 100_000]) {
        const r = await send(port, {
          method,
          path: p,
          headers: { ...auth(), 'content-type': 'application/json' },
          body: body(nested(depth)),
        });
        expect4xx(r, 400, 'bad_request', `${method} ${p} nested ${depth}`);
        assert.match(r.json.error.message, /nests deeper than 64 levels/);
      }
    }
    const claim = await jsonPost(proc.port, '/api/pairing/claim', `{"x":${'['.repeat(1500)}${']'.repeat(1500)}}`);
    assert.notEqual(claim.status, 500);
    assert.deepEqual(dataFiles(), before, 'nothing was written');
    const ok = await send(proc.port, {
      method: 'PUT',
      path: '/api/mcp/global',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: `{"mcpServers":{},"client_settings":${nested(40)}}`,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await send(proc.port, { path: '/health' })).status, 200);
  });

  it('answers malformed percent-encoding in path parameters with a 400, not a 500', async () => {
    for (const [method, p] of [
      ['GET', '/api/skills/%E0%A4%A'],
      ['GET', '/api/profiles/%'],
      ['DELETE', '/api/workspaces/%ZZ'],
      ['PUT', '/api/config/providers/%C3'],
      ['GET', '/api/workspaces/%ff/mcp'],
    ]) {
      const r = await send(proc.port, { method, path: p, headers: { ...auth(), 'content-type': 'application/json' }, body: '{}' });
      expect4xx(r, 400, 'bad_request', `${method} ${p}`);
    }
    assert.ok(!proc.lines.some((l) => /URIError/.test(l.line)), 'not logged as an internal error');
  });

  it('stores invalid UTF-8 and lone surrogates as valid UTF-8 (U+FFFD), never a file that fails to parse', async () => {
    const content = Buffer.concat([
      Buffer.from('{"content":"---\\nname: bytes\\ndescription: d\\n---\\nbad: '),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from(' \\ud800 end"}'),
    ]);
    const r = await send(proc.port, {
      method: 'PUT',
      path: '/api/skills/bytes',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: content,
    });
    assert.equal(r.status, 201, r.text);
    const stored = dataFiles().get(path.join('skills', 'bytes', 'SKILL.md'));
    assert.ok(stored?.includes('\uFFFD'), 'replacement characters, strictly valid UTF-8');
    const name = Buffer.concat([
      Buffer.from('{"id":"utf","name":"A'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('\\udfff","type":"compat"}'),
    ]);
    const p = await send(proc.port, {
      method: 'POST',
      path: '/api/config/providers',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: name,
    });
    assert.equal(p.status, 201, p.text);
    const listed = await send(proc.port, { path: '/api/config/providers', headers: auth() });
    assert.deepEqual(listed.json.errors, [], 'config.yaml still parses');
    assert.ok(listed.json.providers.some((x: { id: string }) => x.id === 'utf'));
  });

  it('takes the last of duplicate keys, like JSON.parse, and validates that value', async () => {
    const dup = `{"chain":"bsc","tokenIn":"${USDT}","tokenOut":"${USDC}","sender":"${BUILD.sender}","amountIn":"1000","amountIn":"-1"}`;
    const r = await send(swapPort, {
      method: 'POST',
      path: '/api/v1/route/build',
      headers: { 'content-type': 'application/json' },
      body: dup,
    });
    expect4xx(r, 400, 'validation_failed', 'duplicate amountIn');
    assert.equal(r.json.error.field, 'amountIn');
    const w = await send(proc.port, {
      method: 'POST',
      path: '/api/workspaces',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"name":"first","name":"second"}',
    });
    assert.equal(w.status, 201);
    assert.equal(w.json.name, 'second');
  });

  it('refuses amounts past 2^256, negative zero and other number tricks, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ amountIn: TWO_256 }, 'amountIn'],
      [{ amountIn: `${TWO_256}000` }, 'amountIn'],
      [{ amountIn: '-0' }, 'amountIn'],
      [{ amountIn: '0' }, 'amountIn'],
      [{ amountIn: '00' }, 'amountIn'],
      [{ amountIn: 1e80 }, 'amountIn'],
      [{ amountIn: '1e3' }, 'amountIn'],
      [{ amountIn: '0x10' }, 'amountIn'],
      [{ amountIn: '１０' }, 'amountIn'],
      [{ gasPrice: TWO_256 }, 'gasPrice'],
      [{ gasPrice: '-0' }, 'gasPrice'],
      // Infinity stringifies to null; the line below puts the literal 1e400 into the raw body.
      [{ slippageTolerance: Number.POSITIVE_INFINITY }, 'slippageTolerance'],
      [{ deadline: 1e300 }, 'deadline'],
    ];
    for (const [over, field] of cases) {
      const raw = JSON.stringify({ ...BUILD, ...over }).replace('"slippageTolerance":null', '"slippageTolerance":1e400');
      const r = await send(swapPort, {
        method: 'POST',
        path: '/api/v1/route/build',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect4xx(r, 400, 'validation_failed', JSON.stringify(over));
      assert.equal(r.json.error.field, field, JSON.stringify(over));
    }
    // JSON's -0 is the number 0: as a slippage it is simply 0 bps, not an error or a 5xx.
    const negZero = await send(swapPort, {
      method: 'POST',
      path: '/api/v1/route/build',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BUILD).replace('}', ',"slippageTolerance":-0}'),
    });
    assert.ok(negZero.status < 500 || ['config_missing', 'upstream_error'].includes(negZero.json?.error?.code), negZero.text);
    const big = await send(proc.port, {
      method: 'POST',
      path: '/api/config/providers',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"id":"n","name":"N","type":"compat","models":[{"id":"m","name":"m","context_window":1e400}]}',
    });
    expect4xx(big, 400, 'validation_failed', 'context_window 1e400');
    assert.match(big.json.error.field, /context_window/);
  });
});
