import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';
import { answer, FakeAggregator, json } from '../swap/fake-aggregator.js';
import { swapYaml } from '../swap/swap-yaml-fixture.js';
import { jsonPost, send, swapListener, type Reply } from './harness.js';

const USDT = '0x55d398326f99059fF775485246999027B3197955';
const USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const SENDER = '0x1111111111111111111111111111111111111111';
const POOL = '0x16b9a82891338f9bA80E2D6970FddA79D1eb0daE';
const DEV_ORIGIN = 'http://localhost:5173';
const BUILD = { chain: 'bsc', tokenIn: USDT, tokenOut: USDC, amountIn: '1000000000000000000', sender: SENDER };

/** Host values a DNS-rebinding page (or a 0.0.0.0 trick) can make the browser send. */
const HOSTILE_HOSTS = [
  'evil.com',
  'localhost.evil.com',
  '127.0.0.1.nip.io',
  '',
  '0.0.0.0',
  'localhost.',
  'evil.com@localhost',
  '[::ffff:127.0.0.1]',
];

const agg = new FakeAggregator();
let proc: BackendProcess;
let port: number;
let swapPort: number;
let code: string;
const seen: Reply[] = [];

/** Every answer goes through here, so the last test can check CORS over all of them. */
async function record(p: Promise<Reply>): Promise<Reply> {
  const r = await p;
  seen.push(r);
  return r;
}

function hostileOrigins(): string[] {
  // Prefix extensions of allowed origins: same start, different origin.
  return [
    'https://evil.com',
    'null',
    'http://localhost.evil.com',
    `${DEV_ORIGIN}.evil.com`,
    `${DEV_ORIGIN}0`,
    `http://127.0.0.1:${port}0`,
    `http://localhost:${port}.evil.com`,
    'app://renderer.evil.com',
    'app://rendererx',
    `${DEV_ORIGIN}/`,
  ];
}

before(async () => {
  await agg.start();
  agg.reply = (_url, res) =>
    json(
      res,
      200,
      answer(USDT, USDC, 10n ** 18n, [
        [
          {
            pool: POOL.toLowerCase(),
            tokenIn: USDT.toLowerCase(),
            tokenOut: USDC.toLowerCase(),
            swapAmount: (10n ** 18n).toString(),
            amountOut: '999000000000000000',
            exchange: 'pancake',
            poolType: 'pancake',
          },
        ],
      ]),
    );
  const dataDir = path.join(tempDir('svc-hard-'), 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dataDir, 'swap.yaml'), swapYaml(agg.url));
  proc = await BackendProcess.start({ dataDir, args: ['-allow-origin', DEV_ORIGIN] });
  port = proc.port;
  swapPort = (await swapListener(proc)).port;
  code = (await proc.waitForLine(/^pairing code: (\d{6})/))[1];
});

after(async () => {
  await proc.stop();
  proc.cleanup();
  await agg.stop();
});

describe('browser attacks on both listeners', () => {
  it('refuses hostile Host values with 403 on the assistant API, the claim and the swap listener', async () => {
    for (const host of HOSTILE_HOSTS) {
      const hosts = [host, host && !host.startsWith('[') && !host.includes('@') ? `${host}:${port}` : host];
      for (const h of hosts) {
        for (const r of [
          await record(send(port, { path: '/health', headers: { host: h } })),
          await record(send(port, { path: '/api/pairing/status', headers: { host: h } })),
          await record(jsonPost(port, '/api/pairing/claim', { pairing_code: code }, { headers: { host: h } })),
          await record(send(swapPort, { path: '/health', headers: { host: h } })),
          await record(jsonPost(swapPort, '/api/v1/route/build', BUILD, { headers: { host: h } })),
        ]) {
          assert.equal(r.status, 403, `Host: ${JSON.stringify(h)}`);
          assert.equal(r.json.error.code, 'forbidden_host');
        }
      }
    }
    assert.equal(agg.seen.length, 0, 'no refused request reached the aggregator');
  });

  it('refuses hostile Origins (simple requests and preflights) on both listeners, without CORS headers', async () => {
    for (const origin of hostileOrigins()) {
      const requests = [
        send(port, { path: '/api/pairing/status', headers: { origin } }),
        jsonPost(port, '/api/pairing/claim', { pairing_code: code }, { headers: { origin } }),
        send(port, {
          method: 'OPTIONS',
          path: '/api/pairing/claim',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        }),
        send(swapPort, { path: '/health', headers: { origin } }),
        jsonPost(swapPort, '/api/v1/route/build', BUILD, { headers: { origin } }),
        send(swapPort, {
          method: 'OPTIONS',
          path: '/api/v1/route/build',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        }),
      ];
      for (const r of await Promise.all(requests.map(record))) {
        assert.equal(r.status, 403, `Origin: ${origin}`);
        assert.equal(r.json.error.code, 'forbidden_origin');
        assert.equal(r.headers['access-control-allow-origin'], undefined, `no CORS grant for ${origin}`);
      }
    }
    assert.equal(agg.seen.length, 0);
    assert.equal((await record(send(port, { path: '/api/pairing/status' }))).json.bound, false, 'no claim got through');
  });

  it('refuses WebSocket upgrades with hostile Hosts or Origins, before the credential is even looked at', async () => {
    const wsUrl = `ws://127.0.0.1:${port}/ws?service_credential=svc_${'A'.repeat(43)}`;
    for (const origin of hostileOrigins()) {
      await assert.rejects(openWs(wsUrl, { origin }), (e: { status?: number }) => e.status === 403, `Origin: ${origin}`);
    }
    // Raw upgrades: the ws client would replace an empty Host with its own.
    const upgradeHeaders = {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    };
    for (const host of HOSTILE_HOSTS) {
      const r = await record(send(port, { path: '/ws?service_credential=x', headers: { ...upgradeHeaders, host } }));
      assert.equal(r.status, 403, `Host: ${JSON.stringify(host)}`);
      assert.equal(r.json.error.code, 'forbidden_host');
    }
    // The swap listener has no WebSocket: an upgrade there is just a refused request.
    const upgrade = await record(send(swapPort, { path: '/ws', headers: { ...upgradeHeaders, origin: 'https://evil.com' } }));
    assert.equal(upgrade.status, 403);
  });

  it('answers cross-site simple POSTs to the claim and the route builder with 415 and no side effect', async () => {
    const failuresBefore = JSON.parse(readFileSync(path.join(proc.dataDir, 'selfhost', 'pairing.json'), 'utf8')).recent_failures.length;
    const bodies: [string, string][] = [
      ['text/plain', JSON.stringify({ pairing_code: code })],
      ['text/plain;charset=UTF-8', JSON.stringify({ pairing_code: code })],
      ['application/x-www-form-urlencoded', `pairing_code=${code}`],
      ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="pairing_code"\r\n\r\n${code}\r\n--x--\r\n`],
    ];
    for (const [type, body] of bodies) {
      // A form post carries the page's Origin; a no-cors fetch may carry none: both are refused.
      for (const origin of [undefined, DEV_ORIGIN]) {
        const headers: Record<string, string> = { 'content-type': type, ...(origin ? { origin } : {}) };
        const claim = await record(send(port, { method: 'POST', path: '/api/pairing/claim', headers, body }));
        assert.equal(claim.status, 415, `claim as ${type}`);
        assert.equal(claim.json.error.code, 'unsupported_media_type');
        const swapBody = type.startsWith('text/plain') ? JSON.stringify(BUILD) : new URLSearchParams(BUILD).toString();
        const build = await record(send(swapPort, { method: 'POST', path: '/api/v1/route/build', headers, body: swapBody }));
        assert.equal(build.status, 415, `route build as ${type}`);
        assert.equal(build.json.error.code, 'unsupported_media_type');
      }
    }
    const noType = await record(send(port, { method: 'POST', path: '/api/pairing/claim', body: JSON.stringify({ pairing_code: code }) }));
    assert.equal(noType.status, 415, 'a body without Content-Type is not JSON either');
    assert.equal(agg.seen.length, 0, 'no route was built');
    const status = await record(send(port, { path: '/api/pairing/status' }));
    assert.equal(status.json.bound, false, 'the code was not consumed');
    const failuresAfter = JSON.parse(readFileSync(path.join(proc.dataDir, 'selfhost', 'pairing.json'), 'utf8')).recent_failures.length;
    assert.equal(failuresAfter, failuresBefore, 'refused bodies do not spend the failure budget');
  });

  it('still serves allowed origins on both listeners, including the WebSocket, and never answers CORS with *', async () => {
    const assistantOrigins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`, 'app://renderer', DEV_ORIGIN];
    for (const origin of assistantOrigins) {
      const r = await record(send(port, { path: '/api/pairing/status', headers: { origin } }));
      assert.equal(r.status, 200, origin);
      assert.equal(r.headers['access-control-allow-origin'], origin);
      const b = await record(jsonPost(swapPort, '/api/v1/route/build', BUILD, { headers: { origin } }));
      assert.equal(b.status, 200, `route build from ${origin}: ${b.text}`);
      assert.equal(b.headers['access-control-allow-origin'], origin);
    }
    const own = await record(send(swapPort, { path: '/health', headers: { origin: `http://127.0.0.1:${swapPort}` } }));
    assert.equal(own.status, 200);
    const claim = await record(jsonPost(port, '/api/pairing/claim', { pairing_code: code }, { headers: { origin: 'app://renderer' } }));
    assert.equal(claim.status, 200, claim.text);
    const ws = await openWs(`ws://127.0.0.1:${port}/ws?service_credential=${claim.json.credential}`, { origin: DEV_ORIGIN });
    assert.equal((await ws.next()).type, 'hello');
    ws.socket.close();
    const refused = await openWs(`ws://127.0.0.1:${port}/ws?service_credential=${claim.json.credential}`, {
      origin: 'https://evil.com',
    }).then(
      () => 0,
      (e: { status?: number }) => e.status,
    );
    assert.equal(refused, 403, 'a valid credential does not let a foreign page in');

    assert.ok(seen.length > 150, `checked ${seen.length} answers`);
    for (const r of seen) {
      assert.notEqual(r.headers['access-control-allow-origin'], '*');
      assert.equal(r.headers['access-control-allow-credentials'], undefined, 'credentials never ride on cookies');
    }
  });
});
