import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { makePdf } from '../helpers/test-files.js';
import { KbRig, makeDocx } from './kb-harness.js';

// The desktop app's backend bundle parses knowledge files in its worker thread: the worker's entry
// (chunks/kb-parse-worker.mjs) is emitted, found and loads its parsers (pdf.js, the HTML reader)
// from chunks/ without starting a second backend.

const BUNDLE = fileURLToPath(new URL('../../../dist-app/backend/service-backend.mjs', import.meta.url));

describe(
  'knowledge: the bundled backend parses in its worker',
  { skip: !existsSync(BUNDLE) && 'dist-app not built (npm run build:app)' },
  () => {
    let rig: KbRig;
    before(async () => {
      rig = await KbRig.start({ start: { entry: BUNDLE } });
    });
    after(async () => rig?.stop());

    it('PDF, DOCX, HTML and Markdown become ready and are found', async () => {
      const kb = (await rig.createKb({ name: 'bundle' })).id;
      const files: [string, Buffer, string][] = [
        ['paper.pdf', makePdf('The narwhalion appears in the bundle', 2), 'narwhalion'],
        ['report.docx', makeDocx([{ text: 'Findings', style: 'Heading1' }, { text: 'The capybarix result holds.' }]), 'capybarix'],
        [
          'page.html',
          Buffer.from(
            '<!doctype html><html><head><title>T</title></head><body><h1>Main</h1><p>The wombatron is explained here in a paragraph long enough for the reader view to keep it as the article of this page.</p></body></html>',
          ),
          'wombatron',
        ],
        ['guide.md', Buffer.from('# Guide\n\nRun the zebracorn installer.\n'), 'zebracorn'],
      ];
      for (const [name, bytes, word] of files) {
        const src = await rig.uploadOk(kb, name, bytes);
        const s = await rig.waitState(kb, src.id, ['ready', 'failed']);
        assert.equal(s.state, 'ready', `${name}: ${JSON.stringify(s.error)}`);
        const hit = (await rig.search(kb, word)).body.results[0];
        assert.equal(hit?.source_id, src.id, name);
      }
      assert.equal(rig.proc.lines.filter((l) => /^listening on /.test(l.line)).length, 1, 'the worker never starts a second backend');
    });
  },
);
