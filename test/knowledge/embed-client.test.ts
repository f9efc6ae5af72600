import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { embed, ProviderFailure } from '../../backend/knowledge/embed-client.js';

// A provider that drops a connection as a request arrives (what a server closing an idle kept-alive
// connection looks like to the client): the request is asked again once on a new connection; a
// provider that keeps dropping them is `provider_unreachable`, naming why.

describe('knowledge: embedding requests over dropped connections', () => {
  let server: http.Server;
  let url = '';
  let drops = 0;
  let arrived = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      arrived++;
      if (drops > 0) {
        drops--;
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ index: 0, embedding: [0.6, 0.8] }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('one dropped connection: asked again, answered', async () => {
    drops = 1;
    arrived = 0;
    const [v] = await embed({ baseUrl: url, model: 'm' }, ['hello'], null);
    assert.deepEqual(
      [...v].map((x) => Math.round(x * 10) / 10),
      [0.6, 0.8],
    );
    assert.equal(arrived, 2);
  });

  it('dropped again: provider_unreachable with the reason, asked twice in all', async () => {
    drops = 5;
    arrived = 0;
    await assert.rejects(embed({ baseUrl: url, model: 'm' }, ['hello'], null), (err: unknown) => {
      assert.ok(err instanceof ProviderFailure);
      assert.equal(err.code, 'provider_unreachable');
      assert.match(err.message, /could not be reached: fetch failed \(UND_ERR_SOCKET\)$/);
      return true;
    });
    assert.equal(arrived, 2);
    drops = 0;
  });
});
