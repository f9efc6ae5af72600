import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, deltaText, model } from './chat-harness.js';

const BUNDLE = fileURLToPath(new URL('../../../dist-app/backend/service-backend.mjs', import.meta.url));

describe(
  'the bundled backend (dist-app) answers a chat turn',
  { skip: !existsSync(BUNDLE) && 'dist-app not built (npm run build:app)' },
  () => {
    it('streams over each protocol from the single-file bundle (protocol code inlined, loaded on the first turn)', async () => {
      const mock = await Aimock.start([{ match: { userMessage: 'bundle' }, response: { content: 'From the bundle.' } }]);
      const rig = await ChatRig.start(
        [
          { id: 'c', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] },
          { id: 'n', type: 'native', base_url: mock.url, models: [model('m1')] },
          { id: 'r', type: 'responsemode', base_url: `${mock.url}/v1`, models: [model('m1')] },
        ],
        { start: { entry: BUNDLE } },
      );
      try {
        for (const provider of ['c', 'n', 'r']) {
          await rig.setProfile({ model: `${provider}:m1` });
          const sid = await rig.newSession();
          const { frames, end } = await rig.turn(sid, 'bundle check');
          assert.equal(end.type, 'turn.completed', `${provider}: ${JSON.stringify(end)}`);
          assert.equal(deltaText(frames), 'From the bundle.');
        }
      } finally {
        await rig.proc.stop();
        rig.proc.cleanup();
        await mock.stop();
      }
    });
  },
);
