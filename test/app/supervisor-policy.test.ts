import assert from 'node:assert/strict';
import { it } from 'node:test';
import { backoffDelay, DEFAULT_TIMING } from '../../app/supervisor/backend-state.js';
import { backendEnv } from '../../app/supervisor/child-process.js';

it('restarts after 1 s, doubling to at most 30 s, killing after 5 s', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 40].map((n) => backoffDelay(n, DEFAULT_TIMING)),
    [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000],
  );
  assert.equal(DEFAULT_TIMING.healthyResetMs, 60_000);
  assert.equal(DEFAULT_TIMING.killTimeoutMs, 5000);
});

it('sets ELECTRON_RUN_AS_NODE only for the backend under Electron, never passes an inherited one on', () => {
  const base = { PATH: '/usr/bin', ELECTRON_RUN_AS_NODE: '1' };
  assert.deepEqual(backendEnv(base, true), { PATH: '/usr/bin', ELECTRON_RUN_AS_NODE: '1' });
  assert.deepEqual(backendEnv(base, false), { PATH: '/usr/bin' });
  assert.equal(base.ELECTRON_RUN_AS_NODE, '1', "the app's own environment is left alone");
});
