import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { httpsJson } from '../helpers/tls-kit.js';
import { startOAuthMcp, type OAuthMcp } from './fixtures/oauth-mcp-server.js';

/** DESIGN 16: under -tls the browser returns from sign-in over https, never with the code in clear. */
describe('tool-server sign-in under -tls', () => {
  let proc: BackendProcess | undefined;
  let remote: OAuthMcp | undefined;
  after(async () => {
    await proc?.stop();
    await remote?.stop();
  });

  it('the callback the authorization server is given uses https on the listener', async () => {
    remote = await startOAuthMcp();
    const dataDir = path.join(tempDir(), 'data');
    proc = await BackendProcess.start({ dataDir, args: ['-tls', 'auto'] });
    await proc.waitForLine(/^pairing code: \d{6}/);
    const ca = readFileSync(path.join(dataDir, 'selfhost', 'tls', 'cert.pem'), 'utf8');
    const claim = await httpsJson(proc.url, 'POST', '/api/pairing/claim', { ca, body: { pairing_code: proc.pairingCode() } });
    const credential = claim.body.credential as string;
    const put = await httpsJson(proc.url, 'PUT', '/api/mcp/global', {
      ca,
      credential,
      body: { mcpServers: { secure: { type: 'http', url: remote.url } } },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const checked = await httpsJson(proc.url, 'POST', '/api/mcp/status/check', { ca, credential, body: { name: 'secure' } });
    assert.equal(checked.body.auth_required, true, JSON.stringify(checked.body));
    const redirect = new URL(new URL(checked.body.authorize_url).searchParams.get('redirect_uri')!);
    assert.equal(redirect.protocol, 'https:');
    assert.equal(`${redirect.origin}${redirect.pathname}`, `${proc.url}/api/mcp/oauth/callback`);
    const registered = [...remote.provider.clients.values()].flatMap((c: { redirect_uris?: string[] }) => c.redirect_uris ?? []);
    assert.deepEqual(registered, [`${proc.url}/api/mcp/oauth/callback`], 'registered with the https callback');
  });
});
