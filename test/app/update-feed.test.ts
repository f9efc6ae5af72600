import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/update-feed-child.js', import.meta.url));
const REGISTER = fileURLToPath(new URL('./fixtures/register-fake-electron.js', import.meta.url));
const NEW_BUILD = Buffer.from('#!/bin/sh\necho "Service 0.2.0"\n'.repeat(200));

/** latest-linux.yml as electron-builder writes it for an AppImage. */
function latestLinuxYml(): string {
  const sha512 = createHash('sha512').update(NEW_BUILD).digest('base64');
  return [
    'version: 0.2.0',
    'files:',
    '  - url: Service-0.2.0.AppImage',
    `    sha512: ${sha512}`,
    `    size: ${NEW_BUILD.length}`,
    'path: Service-0.2.0.AppImage',
    `sha512: ${sha512}`,
    `releaseDate: '2026-11-24T10:00:00.000Z'`,
    '',
  ].join('\n');
}

type Msg = { type: string } & Record<string, any>;

/** Runs the child until `until` is reported (or it times out); returns everything it reported. */
function runChild(feedUrl: string, hasFeed: boolean, until: (m: Msg) => boolean, ms = 20_000): Promise<Msg[]> {
  return new Promise((resolve, reject) => {
    const seen: Msg[] = [];
    const child = fork(CHILD, [feedUrl, hasFeed ? 'yes' : 'no'], {
      execArgv: ['--import', REGISTER],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timed out; saw ${JSON.stringify(seen)}`));
    }, ms);
    child.on('message', (m: Msg) => {
      seen.push(m);
      if (until(m)) {
        clearTimeout(timer);
        child.kill();
        resolve(seen);
      }
    });
  });
}

describe('updates from a local feed with electron-updater (stand-in electron)', () => {
  let server: Server;
  let feedUrl = '';
  const requested: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      requested.push(req.url ?? '');
      if (req.url?.startsWith('/latest-linux.yml')) return res.end(latestLinuxYml());
      if (req.url === '/Service-0.2.0.AppImage') {
        res.setHeader('content-length', NEW_BUILD.length);
        return res.end(NEW_BUILD);
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => server.close());

  it('finds the new version, downloads it, asks, backs up, and only then installs', async () => {
    const seen = await runChild(feedUrl, true, (m) => m.type === 'quitAndInstall');
    const steps = seen.filter((m) => m.type !== 'log').map((m) => (m.version ? `${m.type} ${m.version}` : m.type));
    assert.deepEqual(steps, ['started', 'available 0.2.0', 'ask 0.2.0', 'backup', 'quitAndInstall']);
    assert.ok(requested.some((u) => u.startsWith('/latest-linux.yml')));
    assert.ok(requested.includes('/Service-0.2.0.AppImage'), 'downloaded in the background');
  });

  it('no feed in the build: nothing is requested', async () => {
    requested.length = 0;
    const seen = await runChild(feedUrl, false, (m) => m.type === 'started');
    assert.equal(seen.find((m) => m.type === 'started')?.checking, false);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(requested, []);
  });
});
