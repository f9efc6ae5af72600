import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  fingerprintOfPem,
  normalizeFingerprint,
  PinBook,
  PinMismatchError,
  pinnedRequest,
  probeCertificate,
} from '../../app/remote/cert-pinning.js';
import { generateSelfSigned, type CertificatePair } from '../../backend/selfhost/tls-certificate.js';

/** An HTTPS "backend" on a loopback port that records what reached it. */
function serve(pair: CertificatePair, port = 0): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ bound: true }));
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, seen })),
  );
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('certificate pinning for a remote backend (two certificates)', () => {
  let first: CertificatePair;
  let second: CertificatePair;
  before(async () => {
    [first, second] = await Promise.all([generateSelfSigned(['localhost', '127.0.0.1']), generateSelfSigned(['localhost', '127.0.0.1'])]);
  });
  const servers: Server[] = [];
  after(async () => {
    await Promise.all(servers.map(close));
  });

  it('probes the fingerprint, accepts the pinned certificate, and refuses a replaced one before sending the credential', async () => {
    const a = await serve(first);
    servers.push(a.server);
    const origin = `https://127.0.0.1:${a.port}`;
    const probed = await probeCertificate(origin);
    assert.equal(probed.fingerprint, fingerprintOfPem(first.cert), 'what the user is shown is the served certificate');
    assert.equal(a.seen.length, 0, 'probing sends no request');

    const book = new PinBook();
    const pin = book.pin(origin, probed.fingerprint);
    const ok = await pinnedRequest<{ bound: boolean }>(pin, 'GET', '/api/pairing/status', { credential: 'svc_secret' });
    assert.deepEqual(ok, { status: 200, body: { bound: true } });
    assert.deepEqual(a.seen, ['GET /api/pairing/status Bearer svc_secret']);

    // Same address, another certificate (an impostor, or the backend's certificate was regenerated).
    await close(a.server);
    const b = await serve(second, a.port);
    servers.push(b.server);
    await assert.rejects(pinnedRequest(pin, 'GET', '/api/config/providers', { credential: 'svc_secret' }), (err: unknown) => {
      assert.ok(err instanceof PinMismatchError);
      assert.equal(err.expected, fingerprintOfPem(first.cert));
      assert.equal(err.presented, fingerprintOfPem(second.cert));
      assert.match(err.message, /different certificate than the one pinned/);
      assert.match(err.message, /re-pair/);
      return true;
    });
    assert.deepEqual(b.seen, [], 'the credential never reached the other certificate');

    const verdict = book.verdict(origin, fingerprintOfPem(second.cert));
    assert.equal(verdict.kind, 'mismatch');
    // Re-pairing: the user compared the new fingerprint and trusts it.
    book.pin(origin, (await probeCertificate(origin)).fingerprint);
    assert.equal((await pinnedRequest(book.get(origin)!, 'GET', '/health')).status, 200);
  });

  it("answers Chromium's certificate check by host: accept the pin, refuse others, leave unpinned hosts to the CAs", () => {
    const book = new PinBook();
    book.pin('https://192.0.2.10:8443', fingerprintOfPem(first.cert));
    assert.equal(book.chromiumVerdict('192.0.2.10', first.cert), 0);
    assert.equal(book.chromiumVerdict('192.0.2.10', second.cert), -2);
    assert.equal(book.chromiumVerdict('example.org', second.cert), -3);
  });

  it('keeps pins across a save and load; a damaged pin file is refused with the reason', () => {
    const book = new PinBook();
    book.pin(
      'https://home.example:8443/',
      fingerprintOfPem(first.cert).toLowerCase().replace('sha256:', ''),
      new Date('2026-11-24T10:00:00Z'),
    );
    const again = PinBook.parse(JSON.stringify(book));
    assert.deepEqual(again.get('https://home.example:8443'), {
      origin: 'https://home.example:8443',
      fingerprint: fingerprintOfPem(first.cert),
      pinned_at: '2026-11-24T10:00:00.000Z',
    });
    assert.throws(
      () => PinBook.parse(JSON.stringify({ pins: [{ origin: 'https://x', fingerprint: 'SHA256:00', pinned_at: '' }] })),
      /pins\.0\.fingerprint: fingerprint must be SHA256: and 32 hex pairs/,
    );
    assert.throws(() => new PinBook().pin('https://x', 'nope'), /not a SHA-256 fingerprint/);
    assert.throws(() => new PinBook().pin('http://x', fingerprintOfPem(first.cert)), /origin must be https/);
  });

  it('normalizes the ways a user may paste a fingerprint', () => {
    const canonical = fingerprintOfPem(first.cert);
    const hex = canonical.slice(7).replace(/:/g, '');
    for (const input of [canonical, canonical.toLowerCase(), hex, hex.match(/../g)!.join(' '), ` sha-256 ${hex} `]) {
      assert.equal(normalizeFingerprint(input), canonical, input);
    }
    assert.equal(normalizeFingerprint(hex.slice(2)), null);
  });
});
