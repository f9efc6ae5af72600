import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { send } from '../helpers/raw-http.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { makePdf } from '../helpers/test-files.js';
import { ChatRig, model } from '../chat/chat-harness.js';

const BUNDLE = fileURLToPath(new URL('../../../dist-app/backend/service-backend.mjs', import.meta.url));

describe(
  'the bundled backend reads PDFs (pdf.js inlined, loaded on first use)',
  { skip: !existsSync(BUNDLE) && 'dist-app not built (npm run build:app)' },
  () => {
    it('counts the pages on upload and sends a compat model the PDF text', async () => {
      const mock = await Aimock.start([{ match: { userMessage: 'read it' }, response: { content: 'Read.' } }]);
      const relay = await RecordingRelay.start(mock.url);
      const rig = await ChatRig.start(
        [{ id: 'c', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1', { supports_vision: true })] }],
        {
          start: { entry: BUNDLE },
        },
      );
      try {
        const sid = await rig.newSession();
        const up = await send(rig.proc.port, {
          method: 'POST',
          path: `${rig.sessionsPath(sid)}/attachments`,
          headers: { authorization: `Bearer ${rig.credential}`, 'x-filename': 'report.pdf' },
          body: makePdf('Bundled phrase forty-two', 2),
        });
        assert.equal(up.status, 201, up.text);
        assert.equal(up.json.pages, 2);
        const watch = await rig.watch();
        try {
          const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'read it', attachments: [up.json.id] });
          assert.equal((await watch.end(turn_id)).type, 'turn.completed');
        } finally {
          watch.close();
        }
        const text = relay.last('/chat/completions').json.messages.at(-1).content as string;
        assert.match(
          text,
          /^<file name="report\.pdf">\nBundled phrase forty-two \(page 1\)\n\nBundled phrase forty-two \(page 2\)\n<\/file>/,
        );
      } finally {
        await rig.proc.stop();
        rig.proc.cleanup();
        await relay.stop();
        await mock.stop();
      }
    });
  },
);
