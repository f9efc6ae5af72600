import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forbiddenReason } from '../../backend/web/address-guard.js';
import { DEFAULT_LIMITS, safeFetch, WebError, type FetchLimits } from '../../backend/web/safe-fetch.js';
import { WebService } from '../../backend/web/web-tools.js';
import { WebConfigSchema } from '../../backend/web/web-api.js';
import { PageServer } from './web-servers.js';

describe('address classification', () => {
  it('refuses every special-purpose range and admits public addresses', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:10.0.0.1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
    ])
      assert.ok(forbiddenReason(a), `${a} must be refused`);
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '100.128.0.1'])
      assert.equal(forbiddenReason(a), null, `${a} is public`);
  });
});

describe('safe fetch refusals', () => {
  let canary: PageServer;
  let allowed: PageServer;
  const limits = (extra: Partial<FetchLimits> = {}): FetchLimits => ({ ...DEFAULT_LIMITS, allowHosts: [], ...extra });
  before(async () => {
    canary = await PageServer.start((_req, res) => res.end('<html><body>CANARY REACHED</body></html>'));
    allowed = await PageServer.start((req, res) => {
      if (req.url === '/to-canary') {
        res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/secret` });
        return res.end();
      }
      if (req.url === '/to-metadata') {
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      if (req.url === '/to-file') {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        return res.end();
      }
      res.end('ok');
    });
  });
  after(async () => {
    await canary?.stop();
    await allowed?.stop();
  });

  async function refused(url: string, options: Partial<FetchLimits> = {}): Promise<WebError> {
    const before = canary.hits.length;
    const err = await safeFetch(url, limits(options)).then(
      () => assert.fail(`${url} was fetched`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WebError, `${url}: ${String(err)}`);
    assert.equal(canary.hits.length, before, `${url} reached the canary`);
    return err;
  }

  it('refuses loopback in every spelling, with no request reaching the server', async () => {
    const p = () => canary.port;
    for (const url of [
      `http://localhost:${p()}/`,
      `http://LOCALHOST:${p()}/`,
      `http://127.0.0.1:${p()}/`,
      `http://127.1:${p()}/`,
      `http://2130706433:${p()}/`,
      `http://0x7f000001:${p()}/`,
      `http://0x7f.0.0.1:${p()}/`,
      `http://0177.0.0.1:${p()}/`,
      `http://[::1]:${p()}/`,
      `http://[::ffff:127.0.0.1]:${p()}/`,
      `http://[::ffff:7f00:1]:${p()}/`,
      `http://0.0.0.0:${p()}/`,
      `http://0:${p()}/`,
    ]) {
      const err = await refused(url);
      assert.equal(err.code, 'forbidden_address', `${url}: ${err.message}`);
      assert.match(err.message, /refused/);
    }
  });

  it('refuses private, link-local, CGNAT, metadata, unique-local and multicast addresses', async () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://192.168.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://224.0.0.251/',
      'http://[::ffff:169.254.169.254]/',
    ]) {
      const err = await refused(url);
      assert.equal(err.code, 'forbidden_address', `${url}: ${err.message}`);
    }
    assert.match((await refused('http://169.254.169.254/')).message, /link-local/);
  });

  it('refuses other schemes, naming the rule', async () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/x',
      'gopher://example.com/',
      'data:text/html,hi',
      'javascript:alert(1)',
      'ws://example.com/',
    ]) {
      const err = await refused(url);
      assert.equal(err.code, 'bad_url');
      assert.match(err.message, /http:\/\/ and https:\/\//);
    }
    assert.equal((await refused('not a url')).code, 'bad_url');
  });

  it('checks every redirect: an allowed host sending to a forbidden one is refused', async () => {
    const allowHosts = [allowed.host];
    let err = await refused(`${allowed.url}/to-canary`, { allowHosts });
    assert.equal(err.code, 'forbidden_address');
    err = await refused(`${allowed.url}/to-metadata`, { allowHosts });
    assert.match(err.message, /169\.254\.169\.254/);
    err = await refused(`${allowed.url}/to-file`, { allowHosts });
    assert.equal(err.code, 'bad_url');
    // Without allow_hosts the allowed server itself is loopback.
    assert.equal((await refused(`${allowed.url}/`)).code, 'forbidden_address');
  });

  it('refuses a name that resolves to a forbidden address, and any answer that includes one', async () => {
    const resolve = async (host: string) =>
      host === 'rebind.example'
        ? [{ address: '127.0.0.1', family: 4 as const }]
        : [
            { address: '93.184.216.34', family: 4 as const },
            { address: '::1', family: 6 as const },
          ];
    let err = await refused(`http://rebind.example:${canary.port}/`, { resolve });
    assert.match(err.message, /rebind\.example \(127\.0\.0\.1\).*loopback/);
    err = await refused(`http://mixed.example:${canary.port}/`, { resolve });
    assert.match(err.message, /::1/);
  });

  it('connects to the address it checked: one lookup per hop, the socket pinned to its answer', async () => {
    let lookups = 0;
    // A rebinding resolver: the first answer is the (admitted) test server, later ones the canary's address family elsewhere.
    const resolve = async () => {
      lookups += 1;
      return lookups === 1 ? [{ address: '127.0.0.1', family: 4 as const }] : [{ address: '10.9.9.9', family: 4 as const }];
    };
    const page = await safeFetch(`http://pinned.test:${allowed.port}/`, limits({ allowHosts: [`pinned.test:${allowed.port}`], resolve }));
    assert.equal(page.body.toString(), 'ok');
    assert.equal(lookups, 1, 'no second resolution between check and connect');
    assert.equal(allowed.hits.at(-1)?.headers.host, `pinned.test:${allowed.port}`);
  });

  it('the web_fetch tool names the refusal in its result', async () => {
    const web = new WebService({ config: async () => WebConfigSchema.parse({}), env: {} });
    const tools = await web.turnTools();
    const [, fetchSpec] = await tools.list();
    const before = canary.hits.length;
    const out = await tools.call('w', fetchSpec!, { url: `http://127.1:${canary.port}/` }, new AbortController().signal);
    assert.equal(out.ok, false);
    assert.match(out.content, /web_fetch refused or failed: The address 127\.0\.0\.1 is refused: it is a loopback address/);
    assert.equal(canary.hits.length, before);
  });
});
