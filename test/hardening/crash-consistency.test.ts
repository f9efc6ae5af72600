import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BACKEND_ENTRY, BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';
import { CrashModel, prng, readDataDir, sha256, type Knowledge, type Resource } from './crash-model.js';
import { keepAliveAgent, send, type Reply } from './harness.js';

const SEED = Number(process.env.CRASH_SEED ?? 8);
const WORKERS = 2;
const LIVES_PER_WORKER = Number(process.env.CRASH_LIVES ?? 100);
const env = { EXPRESS_MODE: 'release' };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Stats {
  kills: number;
  acknowledged: number;
  checked: number;
  relogins: number;
  files: number;
}

/** One data directory, killed with SIGKILL `lives` times while six lanes write to it. */
async function worker(w: number, lives: number, stats: Stats): Promise<void> {
  const rand = prng(SEED * 1000 + w);
  const dataDir = path.join(tempDir('svc-crash-'), 'data');
  let { proc, credential } = await startPaired({ dataDir, env });
  const model = new CrashModel();
  let rotationInFlight = false;
  try {
    await runLives();
  } finally {
    await proc.kill();
    proc.cleanup();
  }

  /** Each life: start, write from six lanes, SIGKILL at a random moment, restart and check. */
  async function runLives(): Promise<void> {
    for (let life = 0; life < lives; life++) {
      const agent = keepAliveAgent(8);
      let dead = false;
      const call = (method: string, p: string, body?: unknown): Promise<Reply> =>
        send(proc.port, {
          method,
          path: p,
          agent,
          timeoutMs: 5000,
          headers: { authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      /** A write: unknown while in flight; a fact once a 2xx arrives; unchanged when refused. */
      const write = async (
        resource: Resource,
        ids: string[],
        request: () => Promise<Reply>,
        after: (r: Reply, id: string) => Knowledge,
      ) => {
        const previous = ids.map((id) => model.keys.get(model.key(resource, id)));
        for (const id of ids) model.inFlight(resource, id);
        const r = await request();
        if (r.status >= 200 && r.status < 300) {
          for (const id of ids) model.acknowledged(resource, id, after(r, id));
          stats.acknowledged += 1;
        } else {
          assert.ok(r.status < 500, `${r.status} ${r.text}`);
          ids.forEach((id, i) =>
            previous[i] ? model.keys.set(model.key(resource, id), previous[i]!) : model.keys.delete(model.key(resource, id)),
          );
        }
        return r;
      };
      const lane = async (step: (i: number) => Promise<unknown>) => {
        for (let i = 0; !dead; i++) {
          try {
            await step(i);
          } catch (err) {
            if (dead) return;
            throw err;
          }
        }
      };
      const tag = `${w}-${life}`;
      const lanes = [
        lane(async (i) => {
          const id = `p${tag}-${i}`;
          await write(
            'provider',
            [id],
            () => call('POST', '/api/config/providers', { id, name: `P ${id}`, type: 'compat', api_key: `sk-crash-${id}` }),
            () => ({ state: 'present', value: `P ${id}` }),
          );
          const old = `p${w}-${life - 1}-${i}`;
          if (model.keys.get(model.key('provider', old))?.state === 'present') {
            await write(
              'provider',
              [old],
              () => call('DELETE', `/api/config/providers/${old}`),
              () => ({ state: 'absent' }),
            );
          }
        }),
        lane(async (i) => {
          const value = 1 + Math.floor(rand() * 10_000);
          await write(
            'profile',
            [`pr${i % 5}`],
            () => call('PUT', `/api/profiles/pr${i % 5}`, { timeout_seconds: value }),
            () => ({ state: 'present', value }),
          );
        }),
        lane(async (i) => {
          const r = await call('POST', '/api/workspaces', { name: `w${tag}-${i}` });
          if (r.status === 201) model.acknowledged('workspace', r.json.id, { state: 'present', value: `w${tag}-${i}` });
        }),
        lane(async () => {
          const servers = Object.fromEntries(
            Array.from({ length: 6 }, (_, k) => [`s${k}`, { command: 'node', args: [`v${Math.floor(rand() * 1e6)}`] }]),
          );
          await write(
            'mcp',
            Object.keys(servers),
            () => call('PUT', '/api/mcp/global', { mcpServers: servers }),
            (_r, name) => ({ state: 'present', value: servers[name].args[0] }),
          );
        }),
        lane(async (i) => {
          const name = `sk${i % 4}`;
          if (i % 5 === 4) {
            await write(
              'skill',
              [name],
              () => call('DELETE', `/api/skills/${name}`),
              () => ({ state: 'absent' }),
            );
            return;
          }
          const content = `---\nname: ${name}\ndescription: crash ${tag}-${i}\n---\n${'body '.repeat(200)}\n`;
          await write(
            'skill',
            [name],
            () => call('PUT', `/api/skills/${name}`, { content }),
            () => ({ state: 'present', value: content }),
          );
        }),
        lane(async () => {
          rotationInFlight = true;
          const r = await call('POST', '/api/selfhost/credential/rotate');
          if (r.status === 200) {
            credential = r.json.credential;
            rotationInFlight = false;
            stats.acknowledged += 1;
          }
          await sleep(30 + rand() * 50);
        }),
      ];
      // Cold first requests take tens of ms: kill anywhere in the first ~170 ms of writes.
      await sleep(20 + rand() * 150);
      dead = true;
      proc.child.kill('SIGKILL');
      await proc.exited;
      stats.kills += 1;
      await Promise.all(lanes);
      agent.destroy();

      proc = await BackendProcess.start({ dataDir, env });
      const label = `worker ${w} life ${life}`;
      const disk = readDataDir(dataDir);
      assert.deepEqual(disk.temps, [], `${label}: temporary files left after restart`);
      stats.files += disk.files;
      stats.checked += model.check(disk.read, label);
      model.settle(disk.read);

      const pairing = JSON.parse(readFileSync(path.join(dataDir, 'selfhost', 'pairing.json'), 'utf8'));
      const works =
        (await send(proc.port, { path: '/api/config/providers', headers: { authorization: `Bearer ${credential}` } })).status === 200;
      // One credential per device (selfhost/pairing.json `devices`): the digest on disk decides.
      const stored = (pairing.devices as { credential_sha256: string }[]).some((d) => d.credential_sha256 === sha256(credential));
      assert.equal(works, stored, `${label}: the stored digest decides`);
      if (!works) {
        // Only a rotation the client never heard back about may change the credential.
        assert.ok(rotationInFlight, `${label}: acknowledged credential lost`);
        stats.relogins += 1;
        await proc.kill();
        execFileSync(process.execPath, [BACKEND_ENTRY, 'reset-pairing', '-data', dataDir]);
        proc = await BackendProcess.start({ dataDir, env });
        const code = (await proc.waitForLine(/^pairing code: (\d{6})/))[1];
        const claim = await send(proc.port, {
          method: 'POST',
          path: '/api/pairing/claim',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pairing_code: code }),
        });
        assert.equal(claim.status, 200, claim.text);
        credential = claim.json.credential;
      }
      rotationInFlight = false;
    }
  }
}

describe('crash consistency', () => {
  it(`${WORKERS * LIVES_PER_WORKER} SIGKILLs during writes (seed ${SEED}): files parse, acknowledged writes survive, no temp files, credential works`, async () => {
    const stats: Stats = { kills: 0, acknowledged: 0, checked: 0, relogins: 0, files: 0 };
    const started = Date.now();
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w, LIVES_PER_WORKER, stats)));
    console.log(
      `crash: seed ${SEED}, ${stats.kills} kills, ${stats.acknowledged} acknowledged writes, ${stats.checked} facts checked, ${stats.files} files parsed, ${stats.relogins} re-pairings after an unacknowledged rotation, ${Date.now() - started} ms`,
    );
    assert.equal(stats.kills, WORKERS * LIVES_PER_WORKER);
    // Writes really completed between kills (fewer on a loaded machine, where each write is slower).
    assert.ok(stats.acknowledged >= stats.kills / 4, `only ${stats.acknowledged} acknowledged writes`);
  });
});
